.proc main
    mov o0, v0
    end
.end
