"""simctl: simulated Atlas nodes for tests (thin CLI over tests/sim/sim.py).

  simctl build [--force]
  simctl up --node NAME:PLATFORM[:key=value,...] ... [--inventory PATH] [--registry-port N] [--recreate]
  simctl set NODE KEY=VALUE ...         e.g. chip=0 health=Critical | npu_smi=missing | process=chip0:4242:python3:2048
  simctl fault NODE KEY=VALUE ...       stand-in vllm fault knobs (faults.json on the node); `clear` removes them
  simctl exec NODE -- CMD ...
  simctl status [--json]
  simctl inventory [--inventory PATH]
  simctl down [NODE ...] [--all] [--keep-registry]
  simctl registry start|stop|status [--registry-port N]
  simctl wheelhouse DIR                 write the stand-in wheelhouse (vllm, vllm-ascend, triton-ascend, triton)
  simctl sources DIR                    write the stand-in source repositories (vllm.git, vllm-ascend.git, catlass.git)

Platforms: atlas_300i_duo, atlas_300i_pro, atlas_200i_pro, atlas_200i_pro_openeuler.
Harness options (any platform): systemd=1 (systemd is PID 1), docker=0 (no Docker Engine),
wheelhouse=PATH (the stand-in wheelhouse there), cann=VERSION|0 (stand-in CANN tree; 9.1.0 on
systemd nodes), sources=PATH (the stand-in source repositories there, and git; needs systemd=1),
ipv6=1. See tests/sim/README.md.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import sim  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(prog="simctl", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("build", help="build the images (cached by a hash of their inputs)")
    p.add_argument("--force", action="store_true", help="rebuild even when the tags exist")
    p = sub.add_parser("up", help="start registry and nodes, write the inventory")
    p.add_argument("--node", action="append", required=True, metavar="NAME:PLATFORM[:k=v,...]")
    p.add_argument("--inventory", metavar="PATH")
    p.add_argument("--registry-port", type=int, default=None)
    p.add_argument("--recreate", action="store_true", help="replace nodes that already exist")
    p = sub.add_parser("set", help="change a node's simulated NPU state")
    p.add_argument("node")
    p.add_argument("pairs", nargs="+", metavar="KEY=VALUE")
    p = sub.add_parser("fault", help="set fault knobs of the stand-in vllm on a node")
    p.add_argument("node")
    p.add_argument("pairs", nargs="+", metavar="KEY=VALUE|clear")
    p = sub.add_parser("exec", help="run a command on a node")
    p.add_argument("node")
    p.add_argument("command", nargs=argparse.REMAINDER)
    p = sub.add_parser("status", help="registry, network and nodes")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("inventory", help="(re)write the Ansible inventory of the running nodes")
    p.add_argument("--inventory", metavar="PATH")
    p = sub.add_parser("down", help="remove nodes (all when none named); network and registry follow")
    p.add_argument("nodes", nargs="*")
    p.add_argument("--all", action="store_true", help="remove every ascend-sim container, volume and network")
    p.add_argument("--keep-registry", action="store_true")
    p = sub.add_parser("wheelhouse", help="write the stand-in wheelhouse (vllm, vllm-ascend 0.22.0/0.23.0, "
                                          "triton-ascend, triton) into DIR")
    p.add_argument("dir")
    p = sub.add_parser("sources", help="write the stand-in source repositories of vllm and vllm-ascend (tags v0.22.0, "
                                       "v0.23.0; the catlass submodule) into DIR")
    p.add_argument("dir")
    p = sub.add_parser("registry", help="start or stop the local registry by itself")
    p.add_argument("action", choices=["start", "stop", "status"])
    p.add_argument("--registry-port", type=int, default=None)
    args = parser.parse_args(argv)

    try:
        if args.cmd == "build":
            refs = sim.build(force=args.force)
            print("\n".join([refs.base, refs.node, refs.node_systemd, refs.node_src, refs.vllm, *refs.variants.values(),
                             refs.haproxy]))
        elif args.cmd == "up":
            specs = [sim.NodeSpec.parse(text) for text in args.node]
            info = sim.up(specs, inventory=args.inventory, port=args.registry_port, recreate=args.recreate)
            print("registry (nodes): %s" % info["registry"])
            print("registry (host):  %s" % info["registry_local"])
            print("inventory:        %s" % info["inventory"])
            for name in info["nodes"]:
                print("node:             %s" % name)
        elif args.cmd == "set":
            sys.stdout.write(sim.set_node(args.node, args.pairs))
        elif args.cmd == "fault":
            sys.stdout.write(sim.fault(args.node, args.pairs))
        elif args.cmd == "exec":
            command = args.command[1:] if args.command[:1] == ["--"] else args.command
            if not command:
                parser.error("exec: give a command after --")
            tty = ["-t"] if sys.stdin.isatty() and sys.stdout.isatty() else []
            return subprocess.call(["docker", "exec", "-i", *tty, sim._container(args.node), *command])
        elif args.cmd == "status":
            st = sim.status()
            if args.json:
                print(json.dumps(st, indent=1, default=str))
            else:
                reg = st["registry"]
                if reg:
                    where = "127.0.0.1:%s (pid %s, %s)" % (
                        reg["port"], reg["pid"], "answers" if reg["answers"] else "NOT answering")
                else:
                    where = "stopped"
                print("registry: %s" % where)
                print("network:  %s%s" % (st["network"] or "none", " (gateway %s)" % st["gateway"] if st["gateway"] else ""))
                for n in st["nodes"]:
                    engine = "none" if n["engine"] is None else "up" if n["engine"] else "down"
                    print("node:     %-20s %-26s %-8s engine=%s%s" % (
                        n["name"], n["platform"], n["state"], engine, " systemd" if n["systemd"] else ""))
                if not st["nodes"]:
                    print("node:     (none)")
        elif args.cmd == "inventory":
            print(sim.write_inventory(args.inventory))
        elif args.cmd == "down":
            res = sim.down(args.nodes, all_=args.all, keep_registry=args.keep_registry)
            left = res["leftovers"]
            if args.all and any(left.values()):
                print("left behind: %s" % json.dumps(left))
                return 1
            print("removed: %s" % (", ".join(res["removed"]) or "(nothing)"))
        elif args.cmd == "sources":
            for repo in sim.build_sources(args.dir):
                print(repo)
        elif args.cmd == "wheelhouse":
            for wheel in sim.build_wheelhouse(args.dir):
                print(wheel)
        elif args.cmd == "registry":
            if args.action == "start":
                info = sim.start_registry(args.registry_port)
                print("127.0.0.1:%s (pid %s)" % (info["port"], info["pid"]))
            elif args.action == "stop":
                print("stopped" if sim.stop_registry() else "not running")
            else:
                info = sim.registry_running()
                print("127.0.0.1:%s (pid %s)" % (info["port"], info["pid"]) if info else "stopped")
                return 0 if info else 3
    except sim.SimError as exc:
        sys.stderr.write("simctl: error: %s\n" % exc)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
