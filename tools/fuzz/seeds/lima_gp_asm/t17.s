000:	mov.a0 ^0 t[0].x
001:	nop
002:	nop
003:	mov.p ^22/v0.x ^6
