/* bench/cmd/cmd_devices.c — `flopfit devices`: what every backend sees. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "backend.h"
#include "cli.h"
#include "commands.h"
#include "run/profile_json.h"

static void usage(FILE *f)
{
    char names[256];
    ff_bench_backend_names(names, sizeof(names), "|", "");
    fprintf(f,
            "usage: flopfit devices [--backend %s|all] [--json]\n"
            "\nLists every device each backend sees, with what the driver reports.\n"
            "  --json   one JSON object: \"devices\" (each as a profile's \"device\", with its\n"
            "           \"device\" label and every driver fact as \"details\") and\n"
            "           \"unavailable\" (backends and devices that could not be read, and why)\n"
            "Exit status: 0 at least one device; 1 none; 2 bad usage.\n",
            names);
}

static void print_device(const char *label, const struct ff_device_info *i)
{
    printf("%s  %s\n", label, i->name);
    printf("    %-34s %s\n", "platform / driver", i->platform);
    printf("    %-34s %s\n", "vendor", i->vendor);
    printf("    %-34s %s\n", "driver version", i->driver_version);
    printf("    %-34s %s\n", "API version", i->api_version);
    printf("    %-34s %s%s\n", "type", i->type,
           i->host_shared_memory ? " (memory shared with the host)" : "");
    printf("    %-34s %u\n", "compute units", i->compute_units);
    if (i->clock_mhz)
        printf("    %-34s %u MHz\n", "clock", i->clock_mhz);
    else
        printf("    %-34s not reported\n", "clock");
    printf("    %-34s %.2f GiB (%llu bytes)\n", "global memory",
           (double)i->global_mem_bytes / (1 << 30), (unsigned long long)i->global_mem_bytes);
    printf("    %-34s %.2f GiB\n", "max allocation", (double)i->max_alloc_bytes / (1 << 30));
    if (i->budget_bytes)
        printf("    %-34s %.2f GiB\n", "memory budget", (double)i->budget_bytes / (1 << 30));
    printf("    %-34s fp16 %s, int8 %s, int8 dot %s, matrix engine %s\n", "matmul formats",
           i->fp16 ? "yes" : "no", i->int8 ? "yes" : "no", i->int8_dot ? "yes" : "no",
           i->coopmat ? "yes" : "no");
    for (size_t k = 0; k < i->n_extra; k++)
        printf("    %-34s %s\n", i->extra[k].key, i->extra[k].value);
}

/* {"what": "vulkan:1", "error": "..."}: a backend or device that could not be read. */
static struct json_object *unavailable_json(const char *what, const char *error)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "what", json_object_new_string(what));
    json_object_object_add(o, "error", json_object_new_string(error));
    return o;
}

static const struct option devices_opts[] = {
    {"backend", required_argument, NULL, 'b'},
    {"json", no_argument, NULL, 'j'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

const struct option *ff_devices_options(void)
{
    return devices_opts;
}

int ff_cmd_devices(int argc, char **argv)
{
    const char *only = NULL;
    bool json = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", devices_opts, NULL)) != -1) {
        switch (c) {
        case 'b':
            if (strcmp(optarg, "all") != 0 && !ff_backend_find(optarg)) {
                char names[256];
                ff_bench_backend_names(names, sizeof(names), ", ", "");
                fprintf(stderr,
                        "flopfit devices: invalid value '%s' for --backend: expected %s or all "
                        "(the backends built in)\n",
                        optarg, names);
                return 2;
            }
            only = strcmp(optarg, "all") ? optarg : NULL;
            break;
        case 'j': json = true; break;
        case 'h': usage(stdout); return 0;
        case ':':
            fprintf(stderr, "flopfit devices: option %s needs a value (see --help)\n",
                    argv[optind - 1]);
            return 2;
        default: {
            char err[300];
            ff_unknown_option(err, sizeof(err), argv[optind - 1], devices_opts);
            fprintf(stderr, "flopfit devices: %s\n", err);
            return 2;
        }
        }
    }
    if (optind < argc) {
        fprintf(stderr, "flopfit devices: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    int found = 0;
    struct json_object *devs = json ? json_object_new_array() : NULL;
    struct json_object *unavailable = json ? json_object_new_array() : NULL;
    for (const struct ff_backend *const *b = ff_backends(); *b; b++) {
        const char *name = ff_backend_name(*b);
        if (only && strcasecmp(only, name) != 0)
            continue;
        char err[512] = "";
        uint32_t n = 0;
        int ret = ff_backend_device_count(*b, &n, err, sizeof(err));
        if (ret >= 0 && n == 0)
            snprintf(err, sizeof(err), "no devices (install %s)", ff_backend_hint(*b));
        if (ret < 0 || n == 0) {
            if (json)
                json_object_array_add(unavailable, unavailable_json(name, err));
            else if (ret < 0)
                printf("%s: no devices: %s\n\n", name, err);
            else
                printf("%s: %s\n\n", name, err);
            continue;
        }
        for (uint32_t i = 0; i < n; i++) {
            char label[48];
            snprintf(label, sizeof(label), "%s:%u", name, i);
            struct ff_device *dev = NULL;
            ret = ff_device_open(*b, i, &dev, err, sizeof(err));
            if (ret < 0) {
                if (json)
                    json_object_array_add(unavailable, unavailable_json(label, err));
                else
                    printf("%s  cannot be opened: %s\n\n", label, err);
                continue;
            }
            if (json) {
                struct json_object *d = json_object_new_object();
                json_object_object_add(d, "device", json_object_new_string(label));
                struct json_object *facts = ff_device_to_json(ff_device_info(dev), true);
                json_object_object_foreach(facts, k, v)
                {
                    json_object_object_add(d, k, json_object_get(v));
                }
                json_object_put(facts);
                json_object_array_add(devs, d);
            } else {
                print_device(label, ff_device_info(dev));
                printf("\n");
            }
            ff_device_destroy(&dev);
            found++;
        }
    }
    if (json) {
        struct json_object *root = json_object_new_object();
        json_object_object_add(root, "devices", devs);
        json_object_object_add(root, "unavailable", unavailable);
        printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                                JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(root);
    }
    if (!ff_backends()[0]) {
        fprintf(stderr, "flopfit devices: this flopfit was built without any backend\n");
        return 1;
    }
    return found ? 0 : 1;
}
