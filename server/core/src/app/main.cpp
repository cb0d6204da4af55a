// yuzu-server entry point (server_main.hpp).
#include "yuzu/app/server_main.hpp"
#include "yuzu/common/thread_guard.hpp"

// Nothing escapes main: an exception is logged, counted and exits 1.
int main(int argc, char** argv) {
    int code = 1;
    (void)yuzu::run_guarded("server.main", [&] { code = yuzu::app::run_server_main(argc, argv); });
    return code;
}
