/* A server that dies under valgrind: it answers the harness's readiness probe (its first
 * connection) with "hi", then runs an EVEX-encoded (AVX-512) instruction, which valgrind 3.19
 * decodes on no host, when the next connection arrives (the counted load's). */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* vpxord zmm0, zmm0, zmm0 */
__attribute__((noinline)) static void evex_instruction(void) {
	__asm__ volatile(".byte 0x62,0xf1,0x7d,0x48,0xef,0xc0" ::: "xmm0");
}

int main(int argc, char **argv) {
	if (argc < 2)
		return 2;
	int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[1])),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, 16) != 0)
		return 1;
	const char *hi = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi";
	for (int n = 0;; n++) {
		int c = accept(s, 0, 0);
		if (n > 0)
			evex_instruction();
		char buf[4096];
		if (read(c, buf, sizeof buf) > 0 && write(c, hi, strlen(hi)) < 0)
			return 1;
		close(c);
	}
}
