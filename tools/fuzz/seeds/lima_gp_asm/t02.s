000:	mov.a0 ^0/v2.x $5.x
	add.a1 ^1/v2.y -$5.y $5.z
001:	max.a0 ^6 ^1 ^0
	mov.m0 ^8 ^0
	mul.m1 ^9 ^1 -^0
002:	floor.a0 ^12 ^0
	floor.a1 ^13/$7.z ^8
