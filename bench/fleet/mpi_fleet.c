/*
 * bench/fleet/mpi_fleet.c — `mpirun -np N flopfit bench --mpi` (bench/fleet/fleet.h): the ranks, their
 * share of the devices, the network tests, and rank 0's fleet file and table.
 *
 * A dying rank: Open MPI ends the whole job (mpirun names the rank and its signal) and sends
 * the others SIGTERM. A rank then stops where it is, says so and exits 143 without writing
 * more; a profile or the fleet file it was writing is either whole (ff_write_atomic and
 * ff_write_unique rename a finished temp file) or absent, since the signal waits while a
 * file is written (ff_bench_device; write_fleet below). The next run removes the temp files.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <mpi.h>

#include "config.h"
#include "fleet.h"
#include "mpi_net.h"
#include "families/probe_common.h"
#include "flopfit/profile_fields.h"
#include "run/bench_run.h"
#include "run/profile_json.h"

bool ff_fleet_built(void)
{
    return true;
}

void ff_fleet_no_mpi_message(char *dst, size_t n)
{
    snprintf(dst, n, "this flopfit was built with MPI");
}

static volatile sig_atomic_t world_rank_for_signal;

/* A fleet run cut short is not resumable: say so, leave nothing half written, end. */
static void on_signal(int sig)
{
    char msg[200];
    int len = snprintf(msg, sizeof(msg),
                       "\nflopfit bench --mpi: rank %d: stopped by %s (mpirun ends the job "
                       "when a rank dies or is interrupted); no fleet file from this run\n",
                       (int)world_rank_for_signal, sig == SIGTERM ? "SIGTERM" : "SIGINT");
    if (len > 0) {
        ssize_t w = write(STDERR_FILENO, msg, (size_t)len);
        (void)w;
    }
    _exit(128 + sig);
}

static void catch_signals(void)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static void block_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, old);
}

struct layout {
    int rank, size;             /* in MPI_COMM_WORLD */
    int local_rank, local_size; /* on this host */
    int host_index, n_hosts;
    char host[256];
    MPI_Comm node;    /* the ranks of this host */
    MPI_Comm leaders; /* one rank (local rank 0) per host; MPI_COMM_NULL on the others */
};

static void make_layout(struct layout *l)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &l->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &l->size);
    /* Ranks that share memory are one host (MPI-3 MPI_COMM_TYPE_SHARED). */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, l->rank, MPI_INFO_NULL, &l->node);
    MPI_Comm_rank(l->node, &l->local_rank);
    MPI_Comm_size(l->node, &l->local_size);
    MPI_Comm_split(MPI_COMM_WORLD, l->local_rank == 0 ? 0 : MPI_UNDEFINED, l->rank, &l->leaders);
    int idx[2] = {0, 0};
    if (l->leaders != MPI_COMM_NULL) {
        MPI_Comm_rank(l->leaders, &idx[0]);
        MPI_Comm_size(l->leaders, &idx[1]);
    }
    MPI_Bcast(idx, 2, MPI_INT, 0, l->node);
    l->host_index = idx[0];
    l->n_hosts = idx[1];
    if (gethostname(l->host, sizeof(l->host)) != 0)
        snprintf(l->host, sizeof(l->host), "host%d", l->host_index);
    l->host[sizeof(l->host) - 1] = 0;
}

/* Sends p's results from `root` of comm to every rank of it (same binary: plain bytes). */
static void bcast_results(struct ff_run *p, int root, MPI_Comm comm)
{
    int me = 0;
    MPI_Comm_rank(comm, &me);
    int n = (int)p->n_results;
    MPI_Bcast(&n, 1, MPI_INT, root, comm);
    if (me != root) {
        ff_run_finish(p);
        for (int k = 0; k < n; k++)
            if (!ff_run_add(p))
                MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (n > 0)
        MPI_Bcast(p->results, (int)(n * sizeof(struct ff_result)), MPI_BYTE, root, comm);
}

/* The interconnect tests: intra-node on every host, inter-node between hosts. */
static void measure_network(const struct layout *l, bool quick, struct ff_run *intra,
                            struct ff_run *inter)
{
    if (l->local_size > 1) {
        struct ff_net_cfg cfg = {.quick = quick};
        /* The ranks of a host move every byte through its memory: the bound of a device
         * that streams host memory (probe_common.c: 4x the host's measured streaming read,
         * never below dual-channel DDR4-3200's 51.2 GB/s), measured once per host. */
        double host_bw = l->local_rank == 0 ? ff_probe_host_read_bw() : 0;
        MPI_Bcast(&host_bw, 1, MPI_DOUBLE, 0, l->node);
        cfg.limit = 4 * host_bw > 51.2e9 ? 4 * host_bw : 51.2e9;
        snprintf(cfg.limit_why, sizeof(cfg.limit_why),
                 "host memory: 4x the host's measured streaming read of %.1f GB/s, at least "
                 "51.2 GB/s",
                 host_bw * 1e-9);
        ff_net_sweep(l->node, FF_PF_SCOPE_INTRA_NODE, &cfg, intra);
    } else {
        ff_net_unsupported(FF_PF_SCOPE_INTRA_NODE, 1, "one rank on this host", intra);
    }
    if (l->n_hosts > 1) {
        if (l->leaders != MPI_COMM_NULL) {
            struct ff_net_cfg cfg = {.quick = quick};
            char what[128];
            double mine = ff_net_nic_rate(what, sizeof(what)), slowest = 0;
            /* a host whose rate is unknown leaves the check off for all */
            double v = mine > 0 ? mine : -1;
            MPI_Allreduce(&v, &slowest, 1, MPI_DOUBLE, MPI_MIN, l->leaders);
            if (slowest > 0) {
                cfg.limit = slowest;
                snprintf(cfg.limit_why, sizeof(cfg.limit_why),
                         "the slowest host's NIC line rate (here %s)", what);
            }
            ff_net_sweep(l->leaders, FF_PF_SCOPE_INTER_NODE, &cfg, inter);
        }
        bcast_results(inter, 0, l->node);
    } else {
        ff_net_unsupported(FF_PF_SCOPE_INTER_NODE, 1, "one host", inter);
    }
}

static void add_str(struct json_object *o, const char *k, const char *v)
{
    json_object_object_add(o, k, json_object_new_string(v));
}

static struct json_object *tests_json(const struct ff_run *p, const char *host)
{
    struct json_object *a = json_object_new_array();
    for (size_t k = 0; k < p->n_results; k++) {
        struct json_object *t = ff_result_to_json(&p->results[k]);
        if (host)
            add_str(t, FF_FLEET_HOST, host);
        json_object_array_add(a, t);
    }
    return a;
}

/* Every rank's report to rank 0, as JSON text. */
struct rank_report {
    struct json_object *root;
    int exit_code;
};

static int gather_reports(const char *text, int rank, int size, char ***texts)
{
    int len = (int)strlen(text) + 1;
    int *lens = rank == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
    int *offs = rank == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
    MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    char *all = NULL;
    if (rank == 0) {
        size_t total = 0;
        for (int r = 0; r < size; r++) {
            offs[r] = (int)total;
            total += (size_t)lens[r];
        }
        all = malloc(total ? total : 1);
    }
    MPI_Gatherv(text, len, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        *texts = calloc((size_t)size, sizeof(char *));
        for (int r = 0; r < size; r++)
            (*texts)[r] = strdup(all + offs[r]);
    }
    free(all);
    free(lens);
    free(offs);
    return FF_OK;
}

static const char *jstr(struct json_object *o, const char *k)
{
    struct json_object *v;
    return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

static void print_bytes(char *dst, size_t n, double b)
{
    if (b < 1024)
        snprintf(dst, n, "%.0f B", b);
    else
        ff_fmt_bytes_bin(dst, n, b);
}

static void print_rate(char *dst, size_t n, struct json_object *t, const char *key)
{
    struct json_object *v;
    if (json_object_object_get_ex(t, key, &v))
        ff_fmt_si(dst, n, json_object_get_double(v), "B/s");
    else
        snprintf(dst, n, "-");
}

/* Rank 0's table: one row per device (or rank without one), then the interconnect. */
static void print_table(FILE *f, struct json_object *fleet, int size, int n_hosts)
{
    fprintf(f, "\nfleet: %d rank%s on %d host%s\n", size, size == 1 ? "" : "s", n_hosts,
            n_hosts == 1 ? "" : "s");
    fprintf(f, "    %-5s %-20s %-10s %-10s %-8s %s\n", "rank", "host", "device", "status", "tests",
            "device name / error");
    struct json_object *ranks = json_object_object_get(fleet, FF_FLEET_RANKS);
    for (size_t i = 0; i < json_object_array_length(ranks); i++) {
        struct json_object *r = json_object_array_get_idx(ranks, i);
        int rank = json_object_get_int(json_object_object_get(r, FF_FLEET_RANK));
        const char *host = jstr(r, FF_FLEET_HOST), *status = jstr(r, FF_FLEET_STATUS);
        const char *error = jstr(r, FF_FLEET_ERROR);
        struct json_object *devs = json_object_object_get(r, FF_FLEET_DEVICES);
        size_t nd = devs ? json_object_array_length(devs) : 0;
        if (nd == 0)
            fprintf(f, "    %-5d %-20.20s %-10s %-10s %-8s %s\n", rank, host ? host : "?", "-",
                    status ? status : "?", "-", error ? error : "");
        for (size_t d = 0; d < nd; d++) {
            struct json_object *dev = json_object_array_get_idx(devs, d);
            const char *label = jstr(dev, FF_FLEET_DEVICE), *dstatus = jstr(dev, FF_FLEET_STATUS);
            const char *derror = jstr(dev, FF_FLEET_ERROR);
            struct json_object *prof = json_object_object_get(dev, FF_FLEET_PROFILE);
            unsigned ok = 0, total = 0;
            const char *name = NULL;
            if (prof) {
                struct json_object *tests = json_object_object_get(prof, FF_PF_TESTS);
                for (size_t k = 0; tests && k < json_object_array_length(tests); k++) {
                    const char *st = jstr(json_object_array_get_idx(tests, k), FF_PF_TEST_STATUS);
                    total++;
                    ok += st && strcmp(st, FF_PF_STATUS_OK) == 0;
                }
                name = jstr(json_object_object_get(prof, FF_PF_DEVICE), FF_PF_DEVICE_NAME);
            }
            char tests[24];
            snprintf(tests, sizeof(tests), prof ? "%u/%u ok" : "-", ok, total);
            fprintf(f, "    %-5d %-20.20s %-10s %-10s %-8s %s\n", rank, host ? host : "?",
                    label ? label : "?", dstatus ? dstatus : "?", tests,
                    derror ? derror
                    : name ? name
                           : "");
        }
    }
    fprintf(f, "\ninterconnect: MPI collectives over host memory (busbw, algbw as nccl-tests)\n");
    fprintf(f, "    %-10s %-20.20s %-14s %-5s %-9s %-13s %-13s %-10s %s\n", "scope", "host",
            "collective", "ranks", "size", "busbw", "algbw", "latency", "verified");
    struct json_object *ic = json_object_object_get(fleet, FF_FLEET_INTERCONNECT);
    for (size_t i = 0; ic && i < json_object_array_length(ic); i++) {
        struct json_object *t = json_object_array_get_idx(ic, i);
        const char *scope = jstr(t, FF_PF_TEST_SCOPE), *name = jstr(t, FF_PF_TEST_NAME);
        const char *status = jstr(t, FF_PF_TEST_STATUS), *host = jstr(t, FF_FLEET_HOST);
        int ranks = json_object_get_int(json_object_object_get(t, FF_PF_TEST_RANKS));
        if (status && strcmp(status, FF_PF_STATUS_OK) != 0) {
            const char *reason = jstr(t, FF_PF_TEST_REASON);
            char size[24] = "-";
            struct json_object *b;
            if (json_object_object_get_ex(t, FF_PF_TEST_BYTES, &b))
                print_bytes(size, sizeof(size), json_object_get_double(b));
            fprintf(f, "    %-10s %-20.20s %-14s %-5d %-9s %s: %s\n", scope ? scope : "?",
                    host ? host : "-", name ? name : "?", ranks, size, status,
                    reason ? reason : "");
            continue;
        }
        char size[24], bus[32], alg[32], lat[24] = "-";
        print_bytes(size, sizeof(size),
                    json_object_get_double(json_object_object_get(t, FF_PF_TEST_BYTES)));
        print_rate(bus, sizeof(bus), t, FF_PF_TEST_VALUE);
        print_rate(alg, sizeof(alg), t, FF_PF_TEST_ALGBW_BYTES_PER_S);
        struct json_object *l;
        if (json_object_object_get_ex(t, FF_PF_TEST_LATENCY_S, &l))
            ff_fmt_time(lat, sizeof(lat), json_object_get_double(l));
        bool verified = json_object_get_boolean(json_object_object_get(t, FF_PF_TEST_VERIFIED));
        fprintf(f, "    %-10s %-20.20s %-14s %-5d %-9s %-13s %-13s %-10s %s\n", scope ? scope : "?",
                host ? host : "-", name ? name : "?", ranks, size, bus, alg, lat,
                verified ? "yes" : "no");
    }
}

/* Rank 0: the fleet document from every rank's report. Returns the fleet's exit code. */
static int build_fleet(char **texts, int size, const char *iso, struct json_object **out,
                       int *n_hosts)
{
    struct json_object *fleet = json_object_new_object();
    add_str(fleet, FF_PF_SCHEMA, FF_FLEET_SCHEMA_ID);
    add_str(fleet, FF_PF_SCHEMA_VERSION, FF_FLEET_VERSION_WRITTEN);
    json_object_object_add(fleet, FF_PF_TOOL, ff_tool_json());
    add_str(fleet, FF_PF_CREATED, iso);
    struct json_object *ranks = json_object_new_array(), *hosts = json_object_new_array();
    struct json_object *ic = json_object_new_array(), *failed = json_object_new_array();
    int code = 0, devices = 0;
    bool complete = true;
    for (int r = 0; r < size; r++) {
        struct json_object *rep = json_tokener_parse(texts[r]);
        if (!rep || !json_object_is_type(rep, json_type_object)) {
            json_object_put(rep);
            rep = json_object_new_object();
            json_object_object_add(rep, FF_FLEET_RANK, json_object_new_int(r));
            add_str(rep, FF_FLEET_HOST, "?");
            add_str(rep, FF_FLEET_STATUS, "failed");
            add_str(rep, FF_FLEET_ERROR, "its report to rank 0 did not parse as JSON");
        }
        const char *host = jstr(rep, FF_FLEET_HOST), *status = jstr(rep, FF_FLEET_STATUS);
        if (status && strcmp(status, "failed") == 0) {
            code = 1;
            struct json_object *fr = json_object_new_object();
            json_object_object_add(fr, FF_FLEET_RANK, json_object_new_int(r));
            add_str(fr, FF_FLEET_HOST, host ? host : "?");
            const char *e = jstr(rep, FF_FLEET_ERROR);
            add_str(fr, FF_FLEET_ERROR, e ? e : "failed");
            json_object_array_add(failed, fr);
        }
        struct json_object *devs = json_object_object_get(rep, FF_FLEET_DEVICES);
        for (size_t k = 0; devs && k < json_object_array_length(devs); k++) {
            struct json_object *prof, *c;
            if (!json_object_object_get_ex(json_object_array_get_idx(devs, k), FF_FLEET_PROFILE,
                                           &prof))
                continue;
            devices++;
            if (json_object_object_get_ex(prof, FF_PF_COMPLETE, &c) && !json_object_get_boolean(c))
                complete = false;
        }
        /* The interconnect tests travel in the report, not in the fleet's rank list. */
        struct json_object *its;
        if (json_object_object_get_ex(rep, FF_FLEET_INTERCONNECT, &its)) {
            for (size_t k = 0; k < json_object_array_length(its); k++)
                json_object_array_add(ic, json_object_get(json_object_array_get_idx(its, k)));
            json_object_object_del(rep, FF_FLEET_INTERCONNECT);
        }
        /* hosts: in the order their first rank appears */
        size_t h = 0;
        for (; h < json_object_array_length(hosts); h++)
            if (host && strcmp(jstr(json_object_array_get_idx(hosts, h), FF_FLEET_NAME), host) == 0)
                break;
        if (h == json_object_array_length(hosts)) {
            struct json_object *ho = json_object_new_object();
            add_str(ho, FF_FLEET_NAME, host ? host : "?");
            json_object_object_add(ho, FF_FLEET_RANKS, json_object_new_array());
            json_object_array_add(hosts, ho);
        }
        json_object_array_add(
            json_object_object_get(json_object_array_get_idx(hosts, h), FF_FLEET_RANKS),
            json_object_new_int(r));
        json_object_array_add(ranks, rep);
    }
    if (devices == 0)
        code = 1;
    *n_hosts = (int)json_object_array_length(hosts);
    json_object_object_add(fleet, FF_PF_COMPLETE, json_object_new_boolean(complete));
    json_object_object_add(fleet, FF_FLEET_HOSTS, hosts);
    json_object_object_add(fleet, FF_FLEET_RANKS, ranks);
    json_object_object_add(fleet, FF_FLEET_INTERCONNECT, ic);
    json_object_object_add(fleet, FF_FLEET_FAILED_RANKS, failed);
    *out = fleet;
    return code;
}

/* Rank 0 writes the fleet file: --output FILE replaced whole, else a new name in the folder. */
static int write_fleet(const struct ff_run_config *rc, const char *text, const char *compact)
{
    char err[1024] = "", used[4352] = "";
    sigset_t old;
    block_signals(&old);
    int ret;
    if (rc->output) {
        ret = ff_write_atomic(rc->output, text, err, sizeof(err));
        ff_strlcpy(used, rc->output, sizeof(used));
    } else {
        char path[4352];
        snprintf(path, sizeof(path), "%s/fleet-%s.json", rc->output_dir, compact);
        ret = ff_write_unique(path, text, used, sizeof(used), err, sizeof(err));
    }
    if (ret < 0)
        fprintf(stderr, "flopfit bench --mpi: the fleet file: %s\n", err);
    else
        fprintf(stderr, "flopfit: fleet file written to %s\n", used);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return ret < 0 ? 1 : 0;
}

/*
 * Every rank must run the same benchmark, or one rank enters a collective the others never
 * reach and the job waits forever. Rank 0's options (ff_fleet_config_text) go to every rank,
 * each compares them with its own, and the first rank that differs says how to all: every rank
 * prints it and stops. 0, or exit code 2.
 */
static int same_options(const struct ff_run_config *opts)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char mine[4096], root[4096], what[512] = "";
    /* A text cut short is cut at the same line on every rank of one build: still comparable. */
    (void)ff_fleet_config_text(opts, mine, sizeof(mine));
    memcpy(root, mine, sizeof(root));
    MPI_Bcast(root, (int)sizeof(root), MPI_CHAR, 0, MPI_COMM_WORLD);
    root[sizeof(root) - 1] = '\0';
    int bad = ff_fleet_config_diff(root, mine, what, sizeof(what)) ? rank : INT_MAX, first = 0;
    MPI_Allreduce(&bad, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == INT_MAX)
        return 0;
    MPI_Bcast(what, (int)sizeof(what), MPI_CHAR, first, MPI_COMM_WORLD);
    what[sizeof(what) - 1] = '\0';
    fprintf(stderr,
            "flopfit bench --mpi: rank %d: the ranks were started with different options: rank "
            "%d differs from rank 0 in %s, rank 0's value first; every rank stops (give every "
            "rank the same options)\n",
            rank, first, what);
    return 2;
}

/* Every rank agrees: the largest of the ranks' codes. */
static int agree(int code)
{
    int worst = 0;
    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

int ff_fleet_bench(const struct ff_run_config *opts)
{
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited && MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        fprintf(stderr, "flopfit bench --mpi: MPI_Init failed (run it under mpirun)\n");
        return 1;
    }
    if (same_options(opts) != 0) {
        MPI_Finalize();
        return 2;
    }
    struct layout l;
    make_layout(&l);
    world_rank_for_signal = l.rank;
    catch_signals();
    fprintf(stderr, "flopfit bench --mpi: rank %d of %d on %s (local rank %d of %d, pid %ld)\n",
            l.rank, l.size, l.host, l.local_rank, l.local_size, (long)getpid());

    /* Per-device profiles go to the folder; --output names the fleet file (rank 0's). */
    struct ff_run_config o = *opts;
    if (opts->output_dir == opts->output_dir_buf)
        o.output_dir = o.output_dir_buf;
    o.output = NULL;
    int code = 0;
    if (!o.no_save) {
        code = ff_bench_prepare_output(&o);
        char err[1024];
        if (code == 0 && l.rank == 0 && opts->output &&
            ff_check_writable(opts->output, err, sizeof(err)) < 0) {
            fprintf(stderr, "flopfit bench --mpi: --output: %s\n", err);
            code = 2;
        }
    }
    struct ff_bench_target all[FF_BENCH_MAX_TARGETS];
    size_t n_all = 0;
    char err[1024] = "";
    int sel = code ? FF_OK : ff_bench_select_targets(&o.sel, all, &n_all, err, sizeof(err));
    if (sel == FF_ERR_INVALID) {
        fprintf(stderr, "flopfit bench --mpi: rank %d: %s\n", l.rank, err);
        code = 2;
    }
    if ((code = agree(code)) != 0) {
        MPI_Finalize();
        return code;
    }

    struct ff_host host;
    ff_host_read(&host);
    struct ff_run intra = {0}, inter = {0};
    measure_network(&l, o.cfg.quick, &intra, &inter);

    /* This rank's share of its host's devices: r, r+k, r+2k ... of the k local ranks. */
    struct json_object *rep = json_object_new_object();
    json_object_object_add(rep, FF_FLEET_RANK, json_object_new_int(l.rank));
    add_str(rep, FF_FLEET_HOST, l.host);
    json_object_object_add(rep, FF_FLEET_LOCAL_RANK, json_object_new_int(l.local_rank));
    struct json_object *devs = json_object_new_array();
    char rank_error[2048] = "";
    bool failed = sel < 0;
    if (sel < 0)
        snprintf(rank_error, sizeof(rank_error), "%s", err);
    struct ff_run extra = {0};
    for (size_t k = 0; k < intra.n_results; k++)
        *ff_run_add(&extra) = intra.results[k];
    for (size_t k = 0; k < inter.n_results; k++)
        *ff_run_add(&extra) = inter.results[k];
    size_t mine = 0;
    for (size_t t = (size_t)l.local_rank; t < n_all; t += (size_t)l.local_size) {
        struct ff_bench_device_out out;
        ff_bench_device(&o, &all[t], &host, extra.results, extra.n_results, false, &out);
        mine++;
        struct json_object *d = json_object_new_object();
        add_str(d, FF_FLEET_DEVICE, out.label);
        add_str(d, FF_FLEET_STATUS, out.failed ? "failed" : "ok");
        if (out.failed)
            add_str(d, FF_FLEET_ERROR, out.error[0] ? out.error : "failed");
        if (out.path[0])
            add_str(d, FF_FLEET_PATH, out.path);
        if (out.json) {
            struct json_object *pj = json_tokener_parse(out.json);
            if (pj)
                json_object_object_add(d, FF_FLEET_PROFILE, pj);
            free(out.json);
        }
        json_object_array_add(devs, d);
        if (out.failed) {
            failed = true;
            size_t len = strlen(rank_error);
            snprintf(rank_error + len, sizeof(rank_error) - len, "%s%s", len ? "; " : "",
                     out.error[0] ? out.error : out.label);
        }
    }
    const char *status = failed ? "failed" : mine == 0 ? "no_device" : "ok";
    if (!failed && mine == 0) {
        snprintf(rank_error, sizeof(rank_error),
                 "no device for this rank: %zu device%s on %s, %d rank%s there", n_all,
                 n_all == 1 ? "" : "s", l.host, l.local_size, l.local_size == 1 ? "" : "s");
        fprintf(stderr, "flopfit bench --mpi: rank %d: %s (it took part in the network tests)\n",
                l.rank, rank_error);
    }
    add_str(rep, FF_FLEET_STATUS, status);
    if (rank_error[0])
        add_str(rep, FF_FLEET_ERROR, rank_error);
    json_object_object_add(rep, FF_FLEET_DEVICES, devs);
    /* Each host's intra-node tests once (its local rank 0), the inter-node ones once. */
    if (l.local_rank == 0 || l.rank == 0) {
        struct json_object *ic = json_object_new_array();
        if (l.local_rank == 0) {
            struct json_object *a = tests_json(&intra, l.host);
            for (size_t k = 0; k < json_object_array_length(a); k++)
                json_object_array_add(ic, json_object_get(json_object_array_get_idx(a, k)));
            json_object_put(a);
        }
        if (l.rank == 0) {
            struct json_object *a = tests_json(&inter, NULL);
            for (size_t k = 0; k < json_object_array_length(a); k++)
                json_object_array_add(ic, json_object_get(json_object_array_get_idx(a, k)));
            json_object_put(a);
        }
        json_object_object_add(rep, FF_FLEET_INTERCONNECT, ic);
    }
    char **texts = NULL;
    gather_reports(json_object_to_json_string_ext(rep, JSON_C_TO_STRING_PLAIN), l.rank, l.size,
                   &texts);
    json_object_put(rep);
    code = failed ? 1 : 0;
    if (l.rank == 0) {
        char iso[32], compact[32];
        ff_bench_utc_now(iso, sizeof(iso), compact, sizeof(compact));
        struct json_object *fleet = NULL;
        int n_hosts = 1;
        code = build_fleet(texts, l.size, iso, &fleet, &n_hosts);
        const char *text = json_object_to_json_string_ext(
            fleet, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
        if (strcmp(o.writer->name, "json") == 0)
            printf("%s\n", text);
        else
            print_table(stdout, fleet, l.size, n_hosts);
        fflush(stdout);
        if (!o.no_save && write_fleet(opts, text, compact) != 0)
            code = 1;
        json_object_put(fleet);
        for (int r = 0; r < l.size; r++)
            free(texts[r]);
        free(texts);
    }
    ff_run_finish(&extra);
    ff_run_finish(&intra);
    ff_run_finish(&inter);
    if (l.leaders != MPI_COMM_NULL)
        MPI_Comm_free(&l.leaders);
    MPI_Comm_free(&l.node);
    MPI_Finalize();
    return code;
}
