000:	mov.c ^5/addr1 t[0].w
