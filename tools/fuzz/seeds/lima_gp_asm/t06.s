000:	add.a0 ^0 a1.x a2.x
