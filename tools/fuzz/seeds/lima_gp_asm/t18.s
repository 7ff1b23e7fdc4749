000:	mov.c ^5 t[0].x
001:	nop
002:	mov.p ^16/v0.x ^11
