000:	rcp.c ^5 t[0].z
001:	add.a0 ^6/v0.x ^5 t[0].x
