.proc main
    mov r0, c1
    slt r0, c0, r0
    mov r1, c2.x
    max r0, r0, r1
    mov r1, c2.y
    min o10, r0, r1
    mov o0, v0
    mov o1, c2.x
    mov o2, c2.x
    mov o3, c2.x
    mov o4, c2.x
    mov o5, c2.x
    mov o6, c2.x
    mov o7, c2.x
    mov o8, c2.x
    mov o9, c2.x
    mov o11, c2.xxxy
    mov o12.x, c2.y
    mov o13, c2.x
    mov o14.xy, c2.x
    mov o15.x, c2.y
    end
.end
