000:	nop
001:	frob.a0 ^6 $1.x
