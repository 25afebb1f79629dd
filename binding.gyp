{
  "targets": [
    {
      "target_name": "cprof",
      "sources": ["<!@(ls -1 src/core/*.c src/addon/*.c)"],
      "cflags": ["-std=c11", "-Wall", "-Wextra", "-D_GNU_SOURCE", "<!@(pkg-config --cflags libcjson)"],
      "cflags!": ["-fno-exceptions"],
      "libraries": ["<!@(pkg-config --libs libcjson)"],
      "ldflags": ["-Wl,-z,now"]
    }
  ]
}
