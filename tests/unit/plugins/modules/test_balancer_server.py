"""balancer_server against a fake HAProxy admin socket (a thread answering the runtime API)."""
import os
import socket
import tempfile
import threading

import pytest
from ansible.module_utils import basic

from ansible_collections.ascend.vllm.plugins.modules import balancer_server
from moduleargs import set_module_args as module_args  # noqa: E402 pylint: disable=wrong-import-position

HEADER = '# pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,wretr,wredis,status,weight\n'


class FakeHaproxy:
    """Answers `show stat` from self.servers ({name: [scur, status]}) and applies `set server`."""

    def __init__(self, path, servers):
        self.servers, self.commands = servers, []
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(8)
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                conn = self.sock.accept()[0]
            except OSError:
                return
            command = conn.recv(4096).decode().strip()
            self.commands.append(command)
            if command == 'show stat':
                rows = ''.join('m,%s,0,0,%d,,,,,,,,,,,,,%s,1\n' % (name, scur, status)
                               for name, (scur, status) in self.servers.items())
                conn.sendall((HEADER + rows).encode())
            elif command.startswith('set server m/'):
                name, state = command.split('/')[1].split(' state ')
                self.servers[name][1] = {'drain': 'DRAIN', 'ready': 'UP'}[state]
                self.servers[name][0] = 0
                conn.sendall(b'\n')
            conn.close()


class Done(Exception):
    pass


def _done(self, msg=None, **kwargs):
    raise Done(dict(kwargs, msg=msg) if msg else kwargs)


def run(monkeypatch, capsys, **args):
    monkeypatch.setattr(basic.AnsibleModule, 'exit_json', _done)
    monkeypatch.setattr(basic.AnsibleModule, 'fail_json', lambda self, msg, **kw: _done(self, msg, failed=True, **kw))
    with module_args(args), pytest.raises(Done) as raised:
        balancer_server.main()
    return raised.value.args[0]


@pytest.fixture
def sock_path():
    with tempfile.TemporaryDirectory() as tmp:
        yield os.path.join(tmp, 'admin.sock')


def test_drain_waits_for_the_requests_then_ready_puts_it_back(monkeypatch, capsys, sock_path):
    fake = FakeHaproxy(sock_path, {'a': [2, 'UP'], 'b': [0, 'UP']})
    out = run(monkeypatch, capsys, socket=sock_path, backend='m', server='a', state='drained')
    assert out['changed'] and out['drain'] and out['in_flight'] == 0 and out['others_up'] == ['b']
    assert 'set server m/a state drain' in fake.commands and fake.servers['a'][1] == 'DRAIN'
    out = run(monkeypatch, capsys, socket=sock_path, backend='m', server='a', state='ready')
    assert out['changed'] and out['up'] and fake.servers['a'][1] == 'UP'


def test_no_drain_when_alone_or_without_a_socket(monkeypatch, capsys, sock_path):
    fake = FakeHaproxy(sock_path, {'a': [0, 'UP'], 'b': [0, 'DOWN']})
    out = run(monkeypatch, capsys, socket=sock_path, backend='m', server='a', state='drained')
    assert not out['changed'] and not out['drain'] and 'no other server of m is up' in out['why']
    assert fake.commands == ['show stat']
    out = run(monkeypatch, capsys, socket=sock_path + '.none', backend='m', server='a', state='drained')
    assert not out['drain'] and 'no balancer admin socket' in out['why']
