000:	mov.a0 ^0/$3.x t[0].y
001:	nop
