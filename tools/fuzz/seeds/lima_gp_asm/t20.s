000:	complex2.m0 ^2 t[1].x t[1].x
	rsqrt.c ^5 t[1].x
	mov.p ^4 t[1].x
001:	complex1.m01 ^8 ^5 ^2 ^5 ^4
002:	complex2.m0 ^14 t[1].y t[1].y
	log2.c ^17 t[1].y
	mov.p ^16 t[1].y
003:	mov.a0 ^18/v0.x ^8
	complex1.m01 ^20 ^17 ^14 ^17 ^16
004:	preexp2.p ^28 t[1].z
005:	postlog2.p ^34/v0.y ^20
	complex2.m0 ^32 ^28 ^28
	exp2.c ^35 ^28
	mov.a0 ^30 ^28
006:	complex1.m01 ^38 ^35 ^32 ^35 ^30
007:	nop
008:	mov.a0 ^48/v0.z ^38
