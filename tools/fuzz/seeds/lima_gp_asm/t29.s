000:	mov.a0 ^0 t[0].x
	mov.p ^4 t[0].x
	branch ^4 001
	unknown_1 13
001:	mov.a0 ^6/v0.x ^0
