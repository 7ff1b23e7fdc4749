000:	mov.p ^4 t[0].x
	branch ^4 000
	unknown_1 13
