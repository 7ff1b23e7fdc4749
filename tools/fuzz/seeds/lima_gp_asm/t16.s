000:	mov.c ^5 t[0].x
001:	mov.p ^10/v0.x ^5
