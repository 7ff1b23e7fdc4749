000:	add.a0 ^0 $1.x $1.y
	min.a1 ^1 $1.x $1.y
