.proc main
    mov o0, v0
    mov o1, v1
    end
.end
