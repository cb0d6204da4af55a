#!/bin/sh
# Entry point of the yuzu image: the umask of the systemd units (UMask=0077),
# so every store, key and token file is created 0600, then the command.
umask 0077
exec "$@"
