000:	mov.a0 ^0 t[0].x
001:	add.a0 ^6/v0.x ^0 t[0].y
