{
  "variables": {
    # 1: AddressSanitizer + UBSan (npm run test:asan builds this variant in
    # .cache/asan; the normal build never has it).
    "cprof_sanitize%": "0",
    # A directory with include/cjson/cJSON.h and lib/libcjson.a: cJSON linked
    # statically (scripts/prebuild.js builds it from Debian's source package
    # for every prebuilt binary). Empty: the system's libcjson-dev through
    # pkg-config, as `npm install` from source does.
    "cprof_cjson_static%": "",
    # 1: bind stat/fstat to the entry points every glibc has, so a binary
    # built on a new glibc loads on an old one (src/compat/glibc_stat.c;
    # scripts/prebuild.js sets it for the glibc prebuilds).
    "cprof_glibc_compat%": "0"
  },
  "targets": [
    {
      "target_name": "cprof",
      "sources": ["<!@(ls -1 src/core/*.c src/addon/*.c)"],
      "cflags": ["-std=c11", "-Wall", "-Wextra", "-D_GNU_SOURCE"],
      "cflags!": ["-fno-exceptions"],
      "ldflags": ["-Wl,-z,now"],
      "conditions": [
        ["cprof_cjson_static==''", {
          "cflags": ["<!@(pkg-config --cflags libcjson)"],
          "libraries": ["<!@(pkg-config --libs libcjson)"]
        }, {
          "include_dirs": ["<(cprof_cjson_static)/include"],
          "libraries": ["<(cprof_cjson_static)/lib/libcjson.a"]
        }],
        ["cprof_glibc_compat==1", {
          "sources": ["src/compat/glibc_stat.c"],
          "defines": ["CPROF_GLIBC_COMPAT"]
        }],
        ["cprof_sanitize==1", {
          "cflags": ["-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                     "-fno-omit-frame-pointer", "-g"],
          "ldflags": ["-fsanitize=address,undefined"]
        }]
      ]
    }
  ]
}
