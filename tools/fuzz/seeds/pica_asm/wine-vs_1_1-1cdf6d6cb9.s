.proc main
    mov r0, -v2
    add r0, v1, r0
    mov r1, c0.x
    max r0, r0, r1
    mov r1, c0.y
    min o10, r0, r1
    mov o0, v0
    mov o1, c0.x
    mov o2, c0.x
    mov o3, c0.x
    mov o4, c0.x
    mov o5, c0.x
    mov o6, c0.x
    mov o7, c0.x
    mov o8, c0.x
    mov o9, c0.x
    mov o11, c0.xxxy
    mov o12.x, c0.y
    mov o13, c0.x
    mov o14.xy, c0.x
    mov o15.x, c0.y
    end
.end
