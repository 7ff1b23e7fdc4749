000:	complex2.m0 ^2 t[0].z t[0].z
	rcp.c ^5 t[0].z
	mov.p ^4 t[0].z
001:	complex1.m01 ^8 ^5 ^2 ^5 ^4
