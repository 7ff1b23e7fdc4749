000:	sel.m01 ^2/v0.x t[0].x t[0].y t[0].z
001:	clamp.p ^10/v0.y ^2 t[1].x t[1].y
