000:	mov.a0 ^0 t[0].x
	mov.m1 ^3 t[0].y
001:	nop
002:	mul.m0 ^14/v0.z ^0 -^3
