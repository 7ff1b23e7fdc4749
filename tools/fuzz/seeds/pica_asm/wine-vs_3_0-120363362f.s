.proc main
    mov o0, v0
    mov o1, v1
    mov o2, c0.x
    mov o3.xy, c0.x
    mov o4.x, c0.y
    end
.end
