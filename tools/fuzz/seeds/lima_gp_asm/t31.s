000:	complex2.m0 ^2 a0.w a0.w
	rcp.c ^5 a0.w
	mov.p ^4 a0.w
001:	complex1.m01 ^8 ^5 ^2 ^5 ^4
002:	nop
003:	clamp.p ^22/v0.w ^8 t[2].x t[2].y
004:	mul.m0 ^26 a0.x ^22
	mul.m1 ^27 a0.y ^22
	mov.p ^28 ^22
005:	mul.m0 ^32 ^26 t[0].x
	mul.m1 ^33 ^27 t[0].y
006:	add.a0 ^36/v0.x ^32 t[1].x
	add.a1 ^37/v0.y ^33 t[1].y
	mul.m0 ^38 a0.z ^28
007:	mul.m0 ^44 ^38 t[0].z
008:	add.a0 ^48/v0.z ^44 t[1].z
