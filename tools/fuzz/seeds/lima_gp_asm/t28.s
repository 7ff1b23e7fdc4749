000:	mov.p ^4 t[0].x
	branch ^4 002
	unknown_1 13
001:	mov.a0 ^6/v0.x t[0].y
002:	mov.a0 ^12/v0.y t[0].z
