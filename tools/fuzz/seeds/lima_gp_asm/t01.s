000:	nop
