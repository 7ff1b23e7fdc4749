000:	mov.c ^5/addr1 a4.w
001:	sel.m01 ^8 prev.a4.x prev.a4.y t[9+addr1].z
	mov.c ^11/t[addr0].zw/addr0 t[9+addr1].w
	unknown_1 12
002:	clamp.p ^16 ^8 t[2].x t[2].y
	branch ^16 300
	unknown_1 13
