//go:build bindrace_regress_syscall && !bindrace_regress

#include "textflag.h"

// func getppid()
TEXT ·getppid(SB), NOSPLIT, $0-0
	MOVQ	$110, AX // SYS_getppid
	SYSCALL
	RET
