.proc main
    mov o0.xy, v0.xyx
    mov o0.zw, c0.x
    mov o1.xy, v0.xyx
    end
.end
