/* pvm_start_pvmd: starts Debian's pvmd (never on our library: our paths are removed from its
 * environment), learns its address from the first line it prints, and joins it. */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pvm3.h>

#include "errors.h"
#include "join.h"
#include "lib_state.h"
#include "trace.h"

/* The pvmd's address file, as the pvmd names it. */
static int address_file(char *path, size_t size)
{
	const char *tmp = getenv("PVM_TMP"), *vmid = getenv("PVM_VMID");
	int n = snprintf(path, size, "%s/pvmd.%d%s%s", tmp && *tmp ? tmp : "/tmp", (int)geteuid(),
	                 vmid ? "." : "", vmid ? vmid : "");
	return n > 0 && (size_t)n < size ? 0 : -1;
}

/* In the grandchild: becomes the pvmd, its stdout the pipe. */
static void exec_pvmd(int out, int argc, char **argv)
{
	if (out != 1) {
		dup2(out, 1);
		close(out);
	}
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 2);
		if (null > 2)
			close(null);
	}
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	/* The pvmd links Debian's libpvm3 and uses its internals: our drop-in must not be
	 * what it loads. The tasks it starts get our paths back through PVM_EXPORT. */
	unsetenv("LD_LIBRARY_PATH");
	unsetenv("LD_PRELOAD");
	const char *root = getenv("PVM_ROOT");
	char path[4096];
	snprintf(path, sizeof path, "%s/lib/pvmd", root && *root ? root : "/usr/lib/pvm3");
	char **av = calloc((size_t)argc + 2, sizeof *av);
	if (!av)
		_exit(127);
	av[0] = path;
	for (int i = 0; i < argc; i++)
		av[i + 1] = argv[i];
	execv(path, av);
	av[0] = "pvmd";
	execvp("pvmd", av);
	_exit(127);
}

static int start(int argc, char **argv)
{
	char path[600];
	struct stat sb;
	if (address_file(path, sizeof path))
		return PvmSysErr;
	if (stat(path, &sb) == 0)
		return PvmDupHost;   /* a pvmd of ours runs already */
	int pfd[2];
	if (pipe(pfd) < 0)
		return PvmSysErr;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return PvmSysErr;
	}
	if (pid == 0) {   /* fork again: the pvmd is not our child, nobody has to wait for it */
		close(pfd[0]);
		if (fork() == 0)
			exec_pvmd(pfd[1], argc, argv);
		_exit(0);
	}
	close(pfd[1]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	char line[256];
	size_t have = 0;
	while (have < sizeof line - 1) {   /* its first line: the address */
		ssize_t n = read(pfd[0], line + have, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || line[have] == '\n')
			break;
		have++;
	}
	close(pfd[0]);
	line[have] = 0;
	if (have < 2)
		return PvmCantStart;
	if (setenv("PVMSOCK", line, 1))
		return PvmNoMem;
	return lpvm_attach();
}

static int start_pvmd_untraced(int argc, char **argv, int block)
{
	if (lpvm.mytid != -1)
		return lpvm_error("pvm_start_pvmd", PvmDupHost);
	if (argc < 0 || !argv)
		argc = 0;
	int cc = start(argc, argv);
	if (!cc && block) {   /* wait until the hosts of the host file have been added */
		struct pvmhostinfo *hosts;
		int nhost, narch;
		cc = pvm_config(&nhost, &narch, &hosts);
		unsigned secs = 1;
		while (cc >= 0 && (cc = pvm_addhosts(&hosts[0].hi_name, 1, NULL)) == PvmAlready) {
			sleep(secs);
			if (secs < 8)
				secs *= 2;
		}
		cc = cc == PvmDupHost ? 0 : cc;
	}
	return cc < 0 ? lpvm_error("pvm_start_pvmd", cc) : 0;
}

int pvm_start_pvmd(int argc, char **argv, int block)
{
	if (!trc_armed())
		return start_pvmd_untraced(argc, argv, block);
	/* as stock: the entry (block flag, arguments) only if the task was already in a virtual
	 * machine, the exit (the answer) once it has joined the new one */
	int top = trc_claim_nojoin();
	TRC_EVENT(top, TEV_START_PVMD, TEV_EVENT_ENTRY) {
		trc_int(TEV_DID_BF, block);
		trc_strs(TEV_DID_AS, argv, argc);
	}
	int cc = start_pvmd_untraced(argc, argv, block);
	if (top)
		trc_claim_rejoined();
	TRC_EVENT(top, TEV_START_PVMD, TEV_EVENT_EXIT)
		trc_int(TEV_DID_CC, cc);
	if (top)
		trc_release();
	return cc;
}
