000:	mov.c ^5/addr1 t[0].w
001:	nop
002:	nop
003:	nop
004:	mov.p ^28/v0.x t[511+addr1].x
