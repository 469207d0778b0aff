#!/usr/bin/env bash
# Stand-in for /usr/local/bin/entrypoint.sh of the vllm-ascend 310P images (test harness only).
# Same behaviour as the script vllm-ascend's Dockerfile.310p / Dockerfile.310p.openEuler (v0.23.0,
# v0.23.0rc1) generate: with no "accelerators" line in lspci (RC mode, Atlas 200I Pro) start the log
# daemon as HwHiAiUser and the device-manager daemon as HwDmUser, then exec the command.
# Differences: the simulated node is x86_64, so the daemons (shell placeholders from the node) run
# without the aarch64 loader, and the loader link is only fixed on aarch64.
if lspci 2>/dev/null | grep -qi "accelerators"; then
    :
else
    su - HwHiAiUser -c "export LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64/:/usr/lib64 && /var/slogd -d >/dev/null &"
    su - HwDmUser -c "export LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64/:/usr/lib64 && /var/dmp_daemon -I -M -U 8087 &"
    if [ "$(uname -m)" = aarch64 ]; then
        rm -rf /lib64/ld-linux-aarch64.so.1
        ln -sf /lib/ld-linux-aarch64.so.1 /lib64/ld-linux-aarch64.so.1
    fi
fi

exec "$@"
