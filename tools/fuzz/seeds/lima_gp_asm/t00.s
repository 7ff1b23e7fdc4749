000:	mul.m0 ^2 a0.x t[3].x
	mul.m1 ^3 a0.y t[3].y
