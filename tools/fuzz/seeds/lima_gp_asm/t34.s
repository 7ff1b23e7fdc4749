000:	mov.a0 ^0/v3.x t[0].y
001:	mov.a1 ^7/v3.y t[1].x
