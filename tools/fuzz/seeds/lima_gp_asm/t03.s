000:	complex2.m0 ^2 t[300].x t[300].x
	rcp.c ^5 t[300].x
	mov.p ^4 t[300].x
001:	complex1.m01 ^8 ^5 ^2 ^5 ^4
002:	nop
003:	mov.p ^22/v1.x ^8
