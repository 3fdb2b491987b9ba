/*
** test_fetch.c: the public-trace manifest and `colosim traces fetch`
** (traces/manifest.h, traces/fetch.h), and where device profiles and the
** manifest are found (sim/datadir.h), end to end.
**
** The fetch mechanics run on a small manifest of files made here, served
** from a file:// folder, a loopback HTTP server started by the test, and a
** closed loopback port: verified writes, a corrupted or oversized file
** refused with nothing left behind, present files skipped, stale ones
** replaced, unknown names with a suggestion, derived files needing a
** mirror, network errors naming the URL.  The real manifest is then
** checked against ../shared/traces (skipped with a message when absent):
** it lists every file there, and fetching every trace from that folder as
** a mirror, through libcurl's file://, verifies every checksum.
*/
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "models/device.h"
#include "sim/datadir.h"
#include "tests/util.h"
#include "traces/fetch.h"
#include "traces/manifest.h"

#define HDR "trace,file,kind,repo,commit,path,url,sha256,bytes,licence\n"

static const char A_TEXT[] = "job_id,num_gpu\n0,1\n1,8\n";
static const char B_TEXT[] = "num_switch,num_node_p_switch\n1,32\n";
static const char C_TEXT[] = "seq,name\n0,pod-0\n1,pod-1\n2,pod-2\n";

static char *path_of(const char *rel)
{
	static char buf[8][1024];
	static int k;
	char *p = buf[k++ & 7];
	snprintf(p, sizeof buf[0], "%s/fetch/%s", test_tmpdir(), rel);
	return p;
}

/* mkdir -p of the folder above path. */
static void parents(const char *path)
{
	char d[1024], *p;

	snprintf(d, sizeof d, "%s", path);
	for (p = d + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(d, 0777);
			*p = '/';
		}
}

static void put(const char *path, const char *text, size_t n)
{
	FILE *f;

	parents(path);
	f = fopen(path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(text, 1, n, f), n);
	fclose(f);
}

static int same_content(const char *path, const char *text)
{
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (f == NULL)
		return 0;
	n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	return n == strlen(text) && memcmp(buf, text, n) == 0;
}

/* Entries of folder dir other than "." and ".." (-1: cannot open). */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static void sha_of_text(const char *text, char hex[65])
{
	const char *p = path_of("sha.tmp");

	put(p, text, strlen(text));
	CU_ASSERT_EQUAL(trace_sha256_file(p, hex, NULL, NULL), 0);
	unlink(p);
}

/*
** The toy manifest: trace toy (two upstream files, their url a file://
** folder "upstream"), trace made (one derived file).  The mirror folder
** holds all three, laid out like the fetch folder.
*/
static const char *toy_manifest(void)
{
	static char mpath[1024];
	char sa[65], sb[65], sc[65], text[4096], cwd[1024], up[1024];
	int n;

	snprintf(up, sizeof up, "%s", path_of("upstream"));
	sha_of_text(A_TEXT, sa);
	sha_of_text(B_TEXT, sb);
	sha_of_text(C_TEXT, sc);
	put(path_of("upstream/a.csv"), A_TEXT, strlen(A_TEXT));
	put(path_of("upstream/b.csv"), B_TEXT, strlen(B_TEXT));
	put(path_of("mirror/toy/a.csv"), A_TEXT, strlen(A_TEXT));
	put(path_of("mirror/toy/sub/b.csv"), B_TEXT, strlen(B_TEXT));
	put(path_of("mirror/made/c.csv"), C_TEXT, strlen(C_TEXT));
	cwd[0] = '\0';
	if (up[0] != '/')
		CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
	n = snprintf(text, sizeof text, HDR
		 "toy,toy/a.csv,upstream,o/r,abc1234,a.csv,file://%s%s%s/a.csv,"
		 "%s,%zu,MIT\n"
		 "toy,toy/sub/b.csv,upstream,o/r,abc1234,b.csv,file://%s%s%s/"
		 "b.csv,%s,%zu,MIT\n"
		 "made,made/c.csv,derived,o/sim,def5678,,,%s,%zu,MIT\n",
		 cwd, cwd[0] ? "/" : "", up, sa, strlen(A_TEXT),
		 cwd, cwd[0] ? "/" : "", up, sb, strlen(B_TEXT),
		 sc, strlen(C_TEXT));
	CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
	snprintf(mpath, sizeof mpath, "%s", path_of("toy.csv"));
	put(mpath, text, strlen(text));
	return mpath;
}

struct seen {
	int got, present, replaced;
};

static void on_file(void *ctx, const struct trace_file *f,
		    enum trace_fetch_status st, const char *url)
{
	struct seen *s = ctx;

	(void)f;
	(void)url;
	s->got += st == TRACE_FETCH_GOT;
	s->present += st == TRACE_FETCH_PRESENT;
	s->replaced += st == TRACE_FETCH_REPLACED;
}

static void opts(struct trace_fetch_opts *o, const char *dir,
		 const char *mirror, struct seen *s)
{
	memset(o, 0, sizeof *o);
	memset(s, 0, sizeof *s);
	o->dir = dir;
	o->mirror = mirror;
	o->progress = on_file;
	o->progress_ctx = s;
}

/* ---- SHA-256 and the manifest reader ---------------------------------- */

static void test_sha256_known(void)
{
	char hex[65];
	uint64_t n = 99;
	const char *p = path_of("abc.txt");
	struct sim_err err;

	put(p, "abc", 3);
	CU_ASSERT_EQUAL(trace_sha256_file(p, hex, &n, NULL), 0);
	/* FIPS 180-2, appendix B.1 */
	CU_ASSERT_STRING_EQUAL(hex, "ba7816bf8f01cfea414140de5dae2223"
			       "b00361a396177a9cb410ff61f20015ad");
	CU_ASSERT_EQUAL(n, 3);
	put(p, "", 0);
	CU_ASSERT_EQUAL(trace_sha256_file(p, hex, &n, NULL), 0);
	CU_ASSERT_STRING_EQUAL(hex, "e3b0c44298fc1c149afbf4c8996fb924"
			       "27ae41e4649b934ca495991b7852b855");
	CU_ASSERT_EQUAL(n, 0);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(trace_sha256_file(path_of("nope"), hex, NULL, &err),
			SIM_ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nope"));
}

/* Loads manifest text; returns the code, the message in err. */
static int load_text(const char *text, struct sim_err *err)
{
	struct trace_manifest m;
	const char *p = path_of("bad.csv");
	int rc;

	put(p, text, strlen(text));
	sim_err_clear(err);
	rc = trace_manifest_load(&m, p, err);
	if (rc == 0)
		trace_manifest_fini(&m);
	return rc;
}

#define SHA64 "0123456789abcdef0123456789abcdef" \
	      "0123456789abcdef0123456789abcdef"

static void test_manifest_errors(void)
{
	struct sim_err err;

	CU_ASSERT_EQUAL(load_text(HDR "t,t/a,upstream,o/r,c,a,http://x/a,"
				  SHA64 ",10,MIT\n", &err), 0);
	CU_ASSERT_EQUAL(load_text(HDR "t,t/a,upstream,o/r,c,a,http://x/a,"
				  "abc,10,MIT\n", &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bad.csv:2:8: sha256"));
	CU_ASSERT_EQUAL(load_text(HDR "t,../a,upstream,o/r,c,a,http://x/a,"
				  SHA64 ",10,MIT\n", &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bad.csv:2:2: file"));
	CU_ASSERT_EQUAL(load_text(HDR "t,/etc/a,upstream,o/r,c,a,http://x/a,"
				  SHA64 ",10,MIT\n", &err), SIM_EPARSE);
	CU_ASSERT_EQUAL(load_text(HDR "t,t//a,upstream,o/r,c,a,http://x/a,"
				  SHA64 ",10,MIT\n", &err), SIM_EPARSE);
	CU_ASSERT_EQUAL(load_text(HDR "t,t/a,upstream,o/r,c,a,,"
				  SHA64 ",10,MIT\n", &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "url: missing"));
	CU_ASSERT_EQUAL(load_text(HDR "t,t/a,copied,o/r,c,a,http://x/a,"
				  SHA64 ",10,MIT\n", &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bad.csv:2:3: kind"));
	CU_ASSERT_EQUAL(load_text(HDR "t,t/a,upstream,o/r,c,a,http://x/a,"
				  SHA64 ",0,MIT\n", &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bytes"));
	CU_ASSERT_EQUAL(load_text(HDR "t,t/a,upstream,o/r,c,a,http://x/a,"
				  SHA64 ",10,MIT\n"
				  "u,t/a,upstream,o/r,c,a,http://x/a,"
				  SHA64 ",10,MIT\n", &err), SIM_EEXIST);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "listed twice (first on line "
				      "2)"));
	CU_ASSERT_EQUAL(load_text("trace,file,kind\nt,t/a,upstream\n", &err),
			SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "lacks column 'repo'"));
	CU_ASSERT_EQUAL(load_text(HDR, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no files"));
}

/* The repository's manifest: every trace the importers read, each
** upstream URL built from repository, commit and path. */
static void test_manifest_repo(void)
{
	static const char *const want[] = {
		"alibaba-gpu-v2023", "alibaba-gpu-v2023-fgd-seed42",
		"alibaba-gpu-v2025", "alibaba-genai-v2026", "azure-llm-2023",
		"muri", "tiresias", NULL
	};
	struct trace_manifest m;
	struct sim_err err;
	const char *names[16];
	char url[2048];
	size_t i, k, nn;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(trace_manifest_load(&m, "traces/manifest.csv",
						  &err), 0);
	nn = trace_manifest_names(&m, names, 16);
	CU_ASSERT_EQUAL(nn, 7);
	for (k = 0; want[k] != NULL; k++) {
		for (i = 0; i < nn && i < 16; i++)
			if (strcmp(names[i], want[k]) == 0)
				break;
		CU_ASSERT(i < nn);
	}
	for (i = 0; i < m.nfiles; i++) {
		const struct trace_file *f = &m.files[i];
		if (f->derived) {
			CU_ASSERT_STRING_EQUAL(f->url, "");
			continue;
		}
		snprintf(url, sizeof url, "https://raw.githubusercontent.com/"
			 "%s/%s/%s", f->repo, f->commit, f->path);
		CU_ASSERT_STRING_EQUAL(f->url, url);
	}
	trace_manifest_fini(&m);
}

/* ---- fetching ----------------------------------------------------------- */

static void test_fetch_upstream_and_present(void)
{
	struct trace_manifest m;
	struct trace_fetch_opts o;
	struct seen s;
	struct sim_err err;
	struct stat st1, st2;
	char dir[1024];

	snprintf(dir, sizeof dir, "%s", path_of("out1"));
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(trace_manifest_load(&m, toy_manifest(), &err),
			      0);
	opts(&o, dir, NULL, &s);
	CU_ASSERT_EQUAL(trace_fetch(&m, "toy", &o, &err), 0);
	CU_ASSERT_EQUAL(s.got, 2);
	CU_ASSERT(same_content(path_of("out1/toy/a.csv"), A_TEXT));
	CU_ASSERT(same_content(path_of("out1/toy/sub/b.csv"), B_TEXT));
	CU_ASSERT_EQUAL(count_entries(path_of("out1/toy")), 2);  /* a, sub */
	CU_ASSERT_EQUAL(stat(path_of("out1/toy/a.csv"), &st1), 0);
	CU_ASSERT_EQUAL(st1.st_mode & 0777, 0644);
	/* Again: both present, not rewritten. */
	opts(&o, dir, NULL, &s);
	CU_ASSERT_EQUAL(trace_fetch(&m, "toy", &o, &err), 0);
	CU_ASSERT_EQUAL(s.present, 2);
	CU_ASSERT_EQUAL(s.got, 0);
	CU_ASSERT_EQUAL(stat(path_of("out1/toy/a.csv"), &st2), 0);
	CU_ASSERT_EQUAL(st1.st_ino, st2.st_ino);
	/* A stale copy (other content) is replaced by the verified one. */
	put(path_of("out1/toy/a.csv"), "stale\n", 6);
	opts(&o, dir, NULL, &s);
	CU_ASSERT_EQUAL(trace_fetch(&m, "toy", &o, &err), 0);
	CU_ASSERT_EQUAL(s.replaced, 1);
	CU_ASSERT_EQUAL(s.present, 1);
	CU_ASSERT(same_content(path_of("out1/toy/a.csv"), A_TEXT));
	trace_manifest_fini(&m);
}

static void test_fetch_mirror_and_derived(void)
{
	struct trace_manifest m;
	struct trace_fetch_opts o;
	struct seen s;
	struct sim_err err;
	char dir[1024], mirror[1024];

	snprintf(dir, sizeof dir, "%s", path_of("out2"));
	snprintf(mirror, sizeof mirror, "%s", path_of("mirror"));
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(trace_manifest_load(&m, toy_manifest(), &err),
			      0);
	/* A derived file has no upstream: without a mirror, a clear no. */
	opts(&o, dir, NULL, &s);
	CU_ASSERT_EQUAL(trace_fetch(&m, "made", &o, &err), SIM_ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "made/c.csv: a derived file"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--mirror"));
	CU_ASSERT_EQUAL(access(path_of("out2/made/c.csv"), F_OK), -1);
	/* From the mirror folder (a relative or absolute path) it comes. */
	sim_err_clear(&err);
	opts(&o, dir, mirror, &s);
	CU_ASSERT_EQUAL(trace_fetch(&m, "made", &o, &err), 0);
	CU_ASSERT_EQUAL(trace_fetch(&m, "toy", &o, &err), 0);
	CU_ASSERT_EQUAL(s.got, 3);
	CU_ASSERT(same_content(path_of("out2/made/c.csv"), C_TEXT));
	CU_ASSERT(same_content(path_of("out2/toy/sub/b.csv"), B_TEXT));
	/* A mirror folder that does not exist. */
	sim_err_clear(&err);
	snprintf(dir, sizeof dir, "%s", path_of("out2b"));
	snprintf(mirror, sizeof mirror, "%s", path_of("no-mirror"));
	opts(&o, dir, mirror, &s);
	CU_ASSERT_EQUAL(trace_fetch(&m, "toy", &o, &err), SIM_ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no-mirror: cannot open the "
				      "mirror folder"));
	trace_manifest_fini(&m);
}

static void test_fetch_corrupt_refused(void)
{
	struct trace_manifest m;
	struct trace_fetch_opts o;
	struct seen s;
	struct sim_err err;
	char bad[sizeof A_TEXT], want[65], got[65], msg[400];
	char dir[1024], mirror[1024];

	snprintf(dir, sizeof dir, "%s", path_of("out3"));
	snprintf(mirror, sizeof mirror, "%s", path_of("badmirror"));
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(trace_manifest_load(&m, toy_manifest(), &err),
			      0);
	/* One byte changed, same size. */
	memcpy(bad, A_TEXT, sizeof A_TEXT);
	bad[strlen(bad) - 2] = '9';
	put(path_of("badmirror/toy/a.csv"), bad, strlen(bad));
	sha_of_text(A_TEXT, want);
	sha_of_text(bad, got);
	opts(&o, dir, mirror, &s);
	CU_ASSERT_EQUAL(trace_fetch(&m, "toy", &o, &err), SIM_EPARSE);
	snprintf(msg, sizeof msg, "toy/a.csv: checksum mismatch: expected %s, "
		 "got %s (from file://", want, got);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, msg));
	if (strstr(err.msg, msg) == NULL)
		fprintf(stderr, "\n  got: %s\n", err.msg);
	CU_ASSERT_EQUAL(s.got, 0);
	/* Nothing left: no file, no temporary. */
	CU_ASSERT_EQUAL(access(path_of("out3/toy/a.csv"), F_OK), -1);
	CU_ASSERT_EQUAL(count_entries(path_of("out3/toy")), 0);
	/* Longer than the manifest says: cut off, refused, nothing left. */
	sim_err_clear(&err);
	put(path_of("badmirror/toy/a.csv"), "job_id,num_gpu\n0,1\n1,8\n2,4\n",
	    strlen(A_TEXT) + 4);
	CU_ASSERT_EQUAL(trace_fetch(&m, "toy", &o, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "toy/a.csv: size mismatch"));
	CU_ASSERT_EQUAL(count_entries(path_of("out3/toy")), 0);
	/* Shorter. */
	sim_err_clear(&err);
	put(path_of("badmirror/toy/a.csv"), A_TEXT, 5);
	CU_ASSERT_EQUAL(trace_fetch(&m, "toy", &o, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "expected 23 bytes, got 5"));
	CU_ASSERT_EQUAL(count_entries(path_of("out3/toy")), 0);
	/* Missing from the mirror: the URL is named. */
	sim_err_clear(&err);
	unlink(path_of("badmirror/toy/a.csv"));
	CU_ASSERT_EQUAL(trace_fetch(&m, "toy", &o, &err), SIM_EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "badmirror/toy/a.csv: "));
	CU_ASSERT_EQUAL(count_entries(path_of("out3/toy")), 0);
	trace_manifest_fini(&m);
}

static void test_fetch_unknown_name(void)
{
	struct trace_manifest m;
	struct trace_fetch_opts o;
	struct seen s;
	struct sim_err err;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(trace_manifest_load(&m, toy_manifest(), &err),
			      0);
	opts(&o, path_of("out4"), NULL, &s);   /* no path_of until used */
	CU_ASSERT_EQUAL(trace_fetch(&m, "tyo", &o, &err), SIM_ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown trace 'tyo' (did you "
				      "mean 'toy'? known: toy, made)"));
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(trace_fetch(&m, "alibaba", &o, &err), SIM_ENOENT);
	CU_ASSERT_PTR_NULL(strstr(err.msg, "did you mean"));
	CU_ASSERT_EQUAL(access(path_of("out4"), F_OK), -1);
	trace_manifest_fini(&m);
	/* A prefix of exactly one name is suggested (the real manifest). */
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(trace_manifest_load(&m, "traces/manifest.csv",
						  &err), 0);
	CU_ASSERT_EQUAL(trace_manifest_check(&m, "azure", &err), SIM_ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "did you mean "
				      "'azure-llm-2023'?"));
	CU_ASSERT_EQUAL(trace_manifest_check(&m, "tiresias", &err), 0);
	trace_manifest_fini(&m);
}

static void test_fetch_network_error(void)
{
	struct trace_manifest m;
	struct trace_fetch_opts o;
	struct seen s;
	struct sim_err err;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(trace_manifest_load(&m, toy_manifest(), &err),
			      0);
	static const char want[] = "http://127.0.0.1:1/traces/toy/a.csv: ";

	/* Port 1 on the loopback: nothing listens there. */
	opts(&o, path_of("out5"), "http://127.0.0.1:1/traces/", &s);
	/* (no path_of until the fetch is done) */
	CU_ASSERT_EQUAL(trace_fetch(&m, "toy", &o, &err), SIM_EIO);
	CU_ASSERT_EQUAL(strncmp(err.msg, want, strlen(want)), 0);
	if (strncmp(err.msg, want, strlen(want)) != 0)
		fprintf(stderr, "\n  got: %s\n", err.msg);
	CU_ASSERT_EQUAL(count_entries(path_of("out5/toy")), 0);
	trace_manifest_fini(&m);
}

/*
** A loopback HTTP server for nreq requests: GET /m/REL answers the
** mirror folder's file REL, anything else 404.  Returns the child's pid
** and its port in *port; it ends by itself after 20 s at most.
*/
static pid_t serve(int nreq, int *port)
{
	struct sockaddr_in a;
	socklen_t al = sizeof a;
	int s = socket(AF_INET, SOCK_STREAM, 0);
	pid_t pid;

	if (s < 0)
		return -1;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&a, sizeof a) != 0 ||
	    listen(s, 4) != 0 ||
	    getsockname(s, (struct sockaddr *)&a, &al) != 0) {
		close(s);
		return -1;
	}
	*port = ntohs(a.sin_port);
	pid = fork();
	if (pid != 0) {
		close(s);
		return pid;
	}
	alarm(20);
	while (nreq-- > 0) {
		char req[2048], path[1200], body[4096], head[256];
		size_t n = 0;
		ssize_t r;
		FILE *f;
		int c = accept(s, NULL, NULL);
		if (c < 0)
			_exit(1);
		while (n < sizeof req - 1 &&
		       (r = read(c, req + n, sizeof req - 1 - n)) > 0) {
			n += (size_t)r;
			req[n] = '\0';
			if (strstr(req, "\r\n\r\n") != NULL)
				break;
		}
		req[n] = '\0';
		f = NULL;
		if (strncmp(req, "GET /m/", 7) == 0) {
			char *sp = strchr(req + 7, ' ');
			if (sp != NULL) {
				*sp = '\0';
				if (snprintf(path, sizeof path, "%s/fetch/"
					     "mirror/%.900s", test_tmpdir(),
					     req + 7) < (int)sizeof path)
					f = fopen(path, "rb");
			}
		}
		if (f != NULL) {
			size_t len = fread(body, 1, sizeof body, f);
			int hl = snprintf(head, sizeof head, "HTTP/1.0 200 OK\r\n"
					  "Content-Length: %zu\r\n\r\n", len);
			fclose(f);
			if (write(c, head, (size_t)hl) < 0 ||
			    write(c, body, len) < 0)
				_exit(1);
		} else {
			static const char nf[] = "HTTP/1.0 404 Not Found\r\n"
						 "Content-Length: 0\r\n\r\n";
			if (write(c, nf, sizeof nf - 1) < 0)
				_exit(1);
		}
		close(c);
	}
	_exit(0);
}

static void test_fetch_http(void)
{
	struct trace_manifest m;
	struct trace_fetch_opts o;
	struct seen s;
	struct sim_err err;
	char base[64], dir[1024];
	int port = 0, st;
	pid_t pid;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(trace_manifest_load(&m, toy_manifest(), &err),
			      0);
	pid = serve(3, &port);
	CU_ASSERT_FATAL(pid > 0);
	snprintf(base, sizeof base, "http://127.0.0.1:%d/m", port);
	snprintf(dir, sizeof dir, "%s", path_of("out6"));
	opts(&o, dir, base, &s);
	CU_ASSERT_EQUAL(trace_fetch(&m, "toy", &o, &err), 0);
	CU_ASSERT_EQUAL(s.got, 2);
	CU_ASSERT(same_content(path_of("out6/toy/sub/b.csv"), B_TEXT));
	/* A 404 names the URL and leaves nothing. */
	snprintf(base, sizeof base, "http://127.0.0.1:%d/elsewhere", port);
	opts(&o, dir, base, &s);
	CU_ASSERT_EQUAL(trace_fetch(&m, "made", &o, &err), SIM_EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/elsewhere/made/c.csv: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "404"));
	CU_ASSERT_EQUAL(count_entries(path_of("out6/made")), 0);
	kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
	trace_manifest_fini(&m);
}

/* ---- the real traces ---------------------------------------------------- */

static int sh(const char *cmd, char *out, size_t n);

/* Removes a folder this suite made (the copies are megabytes). */
static void remove_tree(const char *dir)
{
	char cmd[1200], out[256];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CU_ASSERT_EQUAL(sh(cmd, out, sizeof out), 0);
}

/* Every file under dir/rel (recursively) must be listed in m. */
static void all_listed(const struct trace_manifest *m, const char *dir,
		       const char *rel, size_t *nseen)
{
	char path[1024], sub[1024];
	struct dirent *e;
	struct stat st;
	DIR *d;
	size_t i;

	snprintf(path, sizeof path, "%s%s%s", dir, *rel ? "/" : "", rel);
	d = opendir(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "",
			 e->d_name);
		if (*rel == '\0' && strcmp(e->d_name, "README.md") == 0)
			continue;          /* the folder's own description */
		CU_ASSERT_FATAL(snprintf(path, sizeof path, "%s/%s", dir, sub) <
				(int)sizeof path);
		CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			all_listed(m, dir, sub, nseen);
			continue;
		}
		for (i = 0; i < m->nfiles; i++)
			if (strcmp(m->files[i].file, sub) == 0)
				break;
		if (i == m->nfiles)
			fprintf(stderr, "\n  %s: not in traces/manifest.csv\n",
				sub);
		CU_ASSERT(i < m->nfiles);
		(*nseen)++;
	}
	closedir(d);
}

static void test_fetch_shared_mirror(void)
{
	const char *shared = test_shared_traces();
	struct trace_manifest m;
	struct trace_fetch_opts o;
	struct seen s;
	struct sim_err err;
	const char *names[16];
	char hex[65], dir[1024];
	size_t i, nn, nseen = 0;

	if (shared == NULL) {
		test_skip_trace("tiresias/60_job.csv");
		return;
	}
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(trace_manifest_load(&m, "traces/manifest.csv",
						  &err), 0);
	all_listed(&m, shared, "", &nseen);
	if (nseen < m.nfiles) {
		/* A partial folder (data/traces with some traces fetched). */
		fprintf(stderr, "\n  skipped: %s holds %zu of the %zu files of "
			"traces/manifest.csv\n", shared, nseen, m.nfiles);
		trace_manifest_fini(&m);
		return;
	}
	CU_ASSERT_EQUAL(nseen, m.nfiles);
	/* Every trace through the real path: file:// mirror, libcurl,
	** SHA-256, rename. */
	snprintf(dir, sizeof dir, "%s", path_of("real"));
	opts(&o, dir, shared, &s);
	nn = trace_manifest_names(&m, names, 16);
	for (i = 0; i < nn && i < 16; i++) {
		CU_ASSERT_EQUAL(trace_fetch(&m, names[i], &o, &err), 0);
		if (err.code != 0)
			fprintf(stderr, "\n  %s\n", err.msg);
	}
	CU_ASSERT_EQUAL(s.got, (int)m.nfiles);
	for (i = 0; i < m.nfiles; i++) {
		char p[2200];
		snprintf(p, sizeof p, "%s/%s", dir, m.files[i].file);
		CU_ASSERT_EQUAL(trace_sha256_file(p, hex, NULL, NULL), 0);
		CU_ASSERT_STRING_EQUAL(hex, m.files[i].sha256);
	}
	/* And once more: all present. */
	opts(&o, dir, shared, &s);
	CU_ASSERT_EQUAL(trace_fetch(&m, "tiresias", &o, &err), 0);
	CU_ASSERT_EQUAL(s.present, 2);
	CU_ASSERT_EQUAL(s.got, 0);
	trace_manifest_fini(&m);
	remove_tree(dir);
}

/* ---- where data is found ------------------------------------------------ */

static void test_datadir_order(void)
{
	struct sim_datadir q = {
		"device profiles", NULL, "--devices", "COLOSIM_TEST_DATADIR",
		"no-such-checkout-dir", "devs", "/nonexistent-x/bin/colosim",
		"/nonexistent-p"
	};
	struct sim_err err;
	char out[1024], want[1024];

	unsetenv("COLOSIM_TEST_DATADIR");
	/* Nothing anywhere: every place named. */
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(sim_datadir_find(&q, out, sizeof out, &err),
			SIM_ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no device profiles found: "
				      "--devices not given, "
				      "COLOSIM_TEST_DATADIR not set"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "./no-such-checkout-dir, "
				      "/nonexistent-x/no-such-checkout-dir, "
				      "/nonexistent-x/share/colosim/devs, "
				      "/nonexistent-p/share/colosim/devs"));
	/* The binary's install prefix. */
	snprintf(want, sizeof want, "%s/inst/share/colosim/devs",
		 path_of("dd"));
	CU_ASSERT_EQUAL(mkdir(path_of("dd"), 0777) == 0 || errno == EEXIST, 1);
	parents(want);
	CU_ASSERT_EQUAL(mkdir(want, 0777) == 0 || errno == EEXIST, 1);
	snprintf(out, sizeof out, "%s/inst/bin/colosim", path_of("dd"));
	q.exe = out;
	{
		char got[1024];
		sim_err_clear(&err);
		CU_ASSERT_EQUAL(sim_datadir_find(&q, got, sizeof got, &err), 0);
		CU_ASSERT_STRING_EQUAL(got, want);
		/* The binary's checkout comes before its prefix. */
		snprintf(want, sizeof want, "%s/inst/no-such-checkout-dir",
			 path_of("dd"));
		CU_ASSERT_EQUAL(mkdir(want, 0777) == 0 || errno == EEXIST, 1);
		CU_ASSERT_EQUAL(sim_datadir_find(&q, got, sizeof got, &err), 0);
		CU_ASSERT_STRING_EQUAL(got, want);
		/* The current directory's checkout before both. */
		q.checkout = "models/devices";
		CU_ASSERT_EQUAL(sim_datadir_find(&q, got, sizeof got, &err), 0);
		CU_ASSERT_STRING_EQUAL(got, "models/devices");
		/* The variable before that, the option before all. */
		setenv("COLOSIM_TEST_DATADIR", want, 1);
		CU_ASSERT_EQUAL(sim_datadir_find(&q, got, sizeof got, &err), 0);
		CU_ASSERT_STRING_EQUAL(got, want);
		q.given = "traces";
		CU_ASSERT_EQUAL(sim_datadir_find(&q, got, sizeof got, &err), 0);
		CU_ASSERT_STRING_EQUAL(got, "traces");
		/* A named path that does not exist is an error naming it and
		** where it came from, never a fallback. */
		q.given = "no/such/devs";
		CU_ASSERT_EQUAL(sim_datadir_find(&q, got, sizeof got, &err),
				SIM_ENOENT);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no/such/devs: no such "
					      "file or directory (the device "
					      "profiles named by --devices)"));
		q.given = NULL;
		setenv("COLOSIM_TEST_DATADIR", "no/such/env", 1);
		sim_err_clear(&err);
		CU_ASSERT_EQUAL(sim_datadir_find(&q, got, sizeof got, &err),
				SIM_ENOENT);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "named by "
					      "COLOSIM_TEST_DATADIR"));
		unsetenv("COLOSIM_TEST_DATADIR");
	}
}

static const char *bin_abs(void)
{
	static char buf[1024];
	const char *b = getenv("COLOSIM_BIN");
	char cwd[900];

	if (b == NULL || *b == '\0')
		b = "build/colosim";
	if (b[0] == '/')
		return b;
	if (getcwd(cwd, sizeof cwd) == NULL)
		return b;
	snprintf(buf, sizeof buf, "%s/%s", cwd, b);
	return buf;
}

/* Runs sh -c cmd; its stdout+stderr into out (size n); the exit status. */
static int sh(const char *cmd, char *out, size_t n)
{
	char full[8300];
	FILE *p;
	size_t got;
	int st;

	snprintf(full, sizeof full, "(%s) 2>&1 </dev/null", cmd);
	p = popen(full, "r");
	if (p == NULL)
		return -1;
	got = fread(out, 1, n - 1, p);
	out[got] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
** The binary run from elsewhere: a copy installed under a prefix of its
** own finds nothing until the prefix holds profiles, --devices or
** COLOSIM_DEVICES names them, or a config says `devices = DIR`.
*/
static void test_devices_anywhere(void)
{
	char cmd[8192], out[8192], cwd[900], prefix[1100], cfg[1100];
	char pfx_devs[1200], t[1000];
	struct stat st;
	int rc;

	snprintf(t, sizeof t, "%s", path_of("anywhere"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
	snprintf(prefix, sizeof prefix, "%s/inst", t);
	snprintf(pfx_devs, sizeof pfx_devs, "%s/share/colosim/devices",
		 sim_datadir_prefix());
	/* The build's own binary from another folder: its checkout. */
	snprintf(cmd, sizeof cmd, "mkdir -p %s/bin && cd %s && env -u "
		 "COLOSIM_DEVICES %s list devices", prefix, t, bin_abs());
	rc = sh(cmd, out, sizeof out);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "v100-16gb"));
	/* A copy under a bare prefix: nothing found, every place named. */
	snprintf(cmd, sizeof cmd, "cp %s %s/bin/colosim", bin_abs(), prefix);
	CU_ASSERT_EQUAL_FATAL(sh(cmd, out, sizeof out), 0);
	snprintf(cfg, sizeof cfg, "%s/exp.ini", t);
	{
		FILE *f = fopen(cfg, "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		fprintf(f, "[experiment]\nname = anywhere\ncluster = "
			"1x1:v100-16gb\npolicy = exclusive\ngen.jobs = 2\n"
			"db = anywhere.db\n");
		fclose(f);
	}
	if (stat(pfx_devs, &st) == 0) {
		fprintf(stderr, "\n  skipped (partly): %s exists, so a bare "
			"prefix still finds profiles\n", pfx_devs);
	} else {
		snprintf(cmd, sizeof cmd, "cd %s && env -u COLOSIM_DEVICES "
			 "%s/bin/colosim list devices", t, prefix);
		rc = sh(cmd, out, sizeof out);
		CU_ASSERT_EQUAL(rc, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "--devices not given, "
					      "COLOSIM_DEVICES not set"));
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "/inst/share/colosim/"
					      "devices"));
		snprintf(cmd, sizeof cmd, "cd %s && env -u COLOSIM_DEVICES "
			 "%s/bin/colosim run exp.ini --overwrite", t, prefix);
		rc = sh(cmd, out, sizeof out);
		CU_ASSERT_EQUAL(rc, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "no device profiles found"));
	}
	/* --devices on run and list, COLOSIM_DEVICES. */
	snprintf(cmd, sizeof cmd, "cd %s && env -u COLOSIM_DEVICES "
		 "%s/bin/colosim run exp.ini --overwrite --devices "
		 "%s/models/devices", t, prefix, cwd);
	rc = sh(cmd, out, sizeof out);
	CU_ASSERT_EQUAL(rc, 0);
	if (rc != 0)
		fprintf(stderr, "\n  %s\n  %s\n", cmd, out);
	snprintf(cmd, sizeof cmd, "cd %s && COLOSIM_DEVICES=%s/models/devices "
		 "%s/bin/colosim list devices", t, cwd, prefix);
	CU_ASSERT_EQUAL(sh(cmd, out, sizeof out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "a100-40gb"));
	/* devices = DIR in the config, relative to the config's folder. */
	snprintf(cmd, sizeof cmd, "mkdir -p %s/devs && cp %s/models/devices/"
		 "v100-16gb.ini %s/devs/ && printf 'devices = devs\\n' >> %s",
		 t, cwd, t, cfg);
	CU_ASSERT_EQUAL_FATAL(sh(cmd, out, sizeof out), 0);
	snprintf(cmd, sizeof cmd, "cd / && env -u COLOSIM_DEVICES "
		 "%s/bin/colosim run %s --overwrite -o %s/b.db", prefix, cfg,
		 t);
	rc = sh(cmd, out, sizeof out);
	CU_ASSERT_EQUAL(rc, 0);
	if (rc != 0)
		fprintf(stderr, "\n  %s\n  %s\n", cmd, out);
	/* Installed profiles next to the binary's prefix. */
	snprintf(cmd, sizeof cmd, "mkdir -p %s/share/colosim/devices && cp "
		 "%s/models/devices/*.ini %s/share/colosim/devices/ && cd %s "
		 "&& env -u COLOSIM_DEVICES %s/bin/colosim list devices",
		 prefix, cwd, prefix, t, prefix);
	CU_ASSERT_EQUAL(sh(cmd, out, sizeof out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "h200"));
	remove_tree(t);
}

/* The README's public-trace commands from a fresh folder, through the
** command line: fetch (from ../shared/traces as the mirror), import. */
static void test_cli_fetch_then_import(void)
{
	const char *shared = test_shared_traces();
	char cmd[8192], out[8192], cwd[900], mirror[1024];
	char t[1024];
	int rc;

	snprintf(t, sizeof t, "%s", path_of("readme"));
	if (shared == NULL) {
		test_skip_trace("tiresias/60_job.csv");
		return;
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
	snprintf(mirror, sizeof mirror, "%s%s%s", shared[0] == '/' ? "" : cwd,
		 shared[0] == '/' ? "" : "/", shared);
	snprintf(cmd, sizeof cmd, "mkdir -p %s && cd %s && "
		 "COLOSIM_TRACE_MIRROR=%s %s traces fetch tiresias && "
		 "%s import tiresias data/traces/tiresias/60_job.csv -o "
		 "tir.csv -q && %s traces fetch tiresais", t, t, mirror,
		 bin_abs(), bin_abs(), bin_abs());
	rc = sh(cmd, out, sizeof out);
	CU_ASSERT_EQUAL(rc, 2);          /* the last: an unknown name */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "fetched  tiresias/60_job.csv "
				      "(1871 bytes, sha256 ok) from file://"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "unknown trace 'tiresais' (did "
				      "you mean 'tiresias'?"));
	snprintf(cmd, sizeof cmd, "%s/tir.csv", t);
	CU_ASSERT_EQUAL(access(cmd, R_OK), 0);
	snprintf(cmd, sizeof cmd, "cd %s && COLOSIM_TRACE_MIRROR=%s %s traces "
		 "fetch tiresias", t, mirror, bin_abs());
	CU_ASSERT_EQUAL(sh(cmd, out, sizeof out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "0 fetched, 0 replaced, 2 already "
				      "present"));
	remove_tree(t);
}

TEST_REGISTER(fetch)
{
	static const struct test_case cases[] = {
		{ "SHA-256 known answers", test_sha256_known },
		{ "manifest errors name file:line:column", test_manifest_errors },
		{ "the repository's manifest: names and URLs",
		  test_manifest_repo },
		{ "fetch from url, verified; present skipped, stale replaced",
		  test_fetch_upstream_and_present },
		{ "derived files need a mirror; mirror folders",
		  test_fetch_mirror_and_derived },
		{ "a corrupted or resized file is refused, nothing left",
		  test_fetch_corrupt_refused },
		{ "an unknown trace name suggests the close one",
		  test_fetch_unknown_name },
		{ "a network error names the URL", test_fetch_network_error },
		{ "http mirror: files served, 404 named", test_fetch_http },
		{ "../shared/traces as mirror: all listed, all verified",
		  test_fetch_shared_mirror },
		{ "data lookup order and its error", test_datadir_order },
		{ "device profiles found from anywhere",
		  test_devices_anywhere },
		{ "README: traces fetch then import, from a fresh folder",
		  test_cli_fetch_then_import },
		{ NULL, NULL }
	};
	return test_add_suite("fetch", cases);
}
