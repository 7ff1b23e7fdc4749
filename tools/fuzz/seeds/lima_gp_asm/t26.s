000:	mov.a0 ^0/t[addr0].x t[0].x
	mov.c ^5/addr0 t[0].z
	unknown_1 12
