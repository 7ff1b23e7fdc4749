000:	mov.a0 ^0/$3.x t[0].y
001:	nop
002:	nop
003:	mov.p ^22 reg0.$3.x
004:	add.a0 ^24/v0.x prev.$3.x ^22
005:	nop
006:	nop
