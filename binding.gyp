{
  "variables": {
    # 1: AddressSanitizer + UBSan (npm run test:asan builds this variant in
    # .cache/asan; the normal build never has it).
    "cprof_sanitize%": "0"
  },
  "targets": [
    {
      "target_name": "cprof",
      "sources": ["<!@(ls -1 src/core/*.c src/addon/*.c)"],
      "cflags": ["-std=c11", "-Wall", "-Wextra", "-D_GNU_SOURCE", "<!@(pkg-config --cflags libcjson)"],
      "cflags!": ["-fno-exceptions"],
      "libraries": ["<!@(pkg-config --libs libcjson)"],
      "ldflags": ["-Wl,-z,now"],
      "conditions": [
        ["cprof_sanitize==1", {
          "cflags": ["-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                     "-fno-omit-frame-pointer", "-g"],
          "ldflags": ["-fsanitize=address,undefined"]
        }]
      ]
    }
  ]
}
