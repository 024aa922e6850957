#!/usr/bin/python3
"""rxe_agent: drives one RC QP on the guest's rxe device with python3-pyverbs, one JSON command per line.

For the verbs no stock tool exercises (memory windows, FLUSH, ATOMIC_WRITE), roce4j's interop test
(PyverbsWithRxeTest) connects to this agent over TCP (guest port 18515, forwarded by QEMU), tells it what to
post, and checks both directions: roce4j as requester against rxe's responder, and rxe as requester against
roce4j's responder. Every command answers one JSON line: {"ok": true, ...} or {"ok": false, "error": "..."}.

Commands ("op"):
  open      {gid_index, mr_size}     -> qpn, psn, gid, addr, rkey: PD, CQ, an extended RC QP (send ops: WRITE,
                                        READ, SEND, SEND_WITH_INV, ATOMIC_WRITE, FLUSH, BIND_MW, LOCAL_INV) and
                                        an MR with every remote right, MW_BIND and FLUSH_GLOBAL
  connect   {qpn, psn, gid, retry_cnt} -> the QP to RTS towards roce4j's QP (path MTU 1024, timeout 14 and
                                        retry_cnt 7 unless given, as ibv_rc_pingpong)
  write_mem {offset, hex} / read_mem {offset, length} -> hex: the MR's bytes, written or read locally
  post_recv {count}                  -> receives of the whole MR (a SEND_WITH_INVALIDATE needs one)
  poll_recv {}                       -> status, opcode, byte_len, invalidated (rkey, or null)
  bind_mw   {offset, length, access} -> rkey: allocates a type 2B window and binds it with a BIND_MW work
                                        request (IBA 10.6.7.2); access: names from ACCESS
  bind_mw1  {offset, length, access} -> rkey: allocates a type 1 window and binds it with ibv_bind_mw
                                        (IBA 10.6.7.1), whose provider posts the BIND_MW for it
  local_inv {rkey}                   -> status: LOCAL_INV of a window's rkey
  post      {verb, rkey, addr, ...}  -> status: one signalled work request, then its completion; verb is
                                        write {hex}, read {length, offset}, atomic_write {hex: 8 bytes},
                                        flush {length, level: range|mr}, send_inv {hex, invalidate}
  qp_state  {}                       -> state (IBV_QPS_* number)
  quit      {}
"""
import json
import random
import socket
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr, GlobalRoute, GID
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR, MW, MWBind, MWBindInfo
from pyverbs.pd import PD
from pyverbs.qp import QPAttr, QPCap, QPEx, QPInitAttrEx
from pyverbs.wr import SGE

PORT = 1
POLL_TIMEOUT_S = 10.0
ACCESS = {
    'local_write': e.IBV_ACCESS_LOCAL_WRITE,
    'remote_write': e.IBV_ACCESS_REMOTE_WRITE,
    'remote_read': e.IBV_ACCESS_REMOTE_READ,
    'remote_atomic': e.IBV_ACCESS_REMOTE_ATOMIC,
    'mw_bind': e.IBV_ACCESS_MW_BIND,
    'flush_global': e.IBV_ACCESS_FLUSH_GLOBAL,
}
SEND_OPS = (e.IBV_QP_EX_WITH_RDMA_WRITE | e.IBV_QP_EX_WITH_RDMA_READ | e.IBV_QP_EX_WITH_SEND
            | e.IBV_QP_EX_WITH_SEND_WITH_INV | e.IBV_QP_EX_WITH_ATOMIC_WRITE | e.IBV_QP_EX_WITH_FLUSH
            | e.IBV_QP_EX_WITH_BIND_MW | e.IBV_QP_EX_WITH_LOCAL_INV)


class Agent:
    def __init__(self):
        self.ctx = self.pd = self.cq = self.qp = self.mr = None
        self.gid_index = 1
        self.psn = random.getrandbits(24)
        self.windows = []
        self.wr_id = 0

    def open(self, cmd):
        self.gid_index = int(cmd.get('gid_index', 1))
        size = int(cmd.get('mr_size', 4096))
        self.ctx = Context(name=cmd.get('device', 'rxe0'))
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 64)
        init = QPInitAttrEx(qp_type=e.IBV_QPT_RC, pd=self.pd, scq=self.cq, rcq=self.cq,
                            cap=QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=1, max_recv_sge=1),
                            sq_sig_all=1,
                            comp_mask=e.IBV_QP_INIT_ATTR_PD | e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
                            send_ops_flags=SEND_OPS)
        self.qp = QPEx(self.ctx, init)
        access = 0
        for bit in ACCESS.values():
            access |= bit
        self.mr = MR(self.pd, size, access)
        gid = self.ctx.query_gid(PORT, self.gid_index)
        return {'qpn': self.qp.qp_num, 'psn': self.psn, 'gid': str(gid), 'addr': self.mr.buf,
                'rkey': self.mr.rkey, 'lkey': self.mr.lkey}

    def connect(self, cmd):
        attr = QPAttr(port_num=PORT, path_mtu=e.IBV_MTU_1024)
        # the remote rights the MR has, and FLUSH of the global placement type (rxe_resp.c checks the QP's
        # access flags before the MR's)
        attr.qp_access_flags = (e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC
                                | e.IBV_ACCESS_FLUSH_GLOBAL)
        attr.dest_qp_num = int(cmd['qpn'])
        attr.rq_psn = int(cmd['psn'])
        attr.sq_psn = self.psn
        attr.max_dest_rd_atomic = 1
        attr.max_rd_atomic = 1
        attr.min_rnr_timer = 12   # 0.64 ms (IBA table 45), ibv_rc_pingpong's value
        attr.timeout = 14         # 4.096 us * 2^14 = 67 ms, ibv_rc_pingpong's value
        attr.retry_cnt = int(cmd.get('retry_cnt', 7))  # rxe takes 7 as forever
        attr.rnr_retry = 7
        gr = GlobalRoute(dgid=GID(cmd['gid']), sgid_index=self.gid_index, hop_limit=64)
        attr.ah_attr = AHAttr(port_num=PORT, is_global=1, gr=gr)
        self.qp.to_rts(attr)
        return {}

    def write_mem(self, cmd):
        data = bytes.fromhex(cmd['hex'])
        self.mr.write(data, len(data), int(cmd.get('offset', 0)))
        return {}

    def read_mem(self, cmd):
        return {'hex': bytes(self.mr.read(int(cmd['length']), int(cmd.get('offset', 0)))).hex()}

    def post_recv(self, cmd):
        from pyverbs.wr import RecvWR
        for _ in range(int(cmd.get('count', 1))):
            self.wr_id += 1
            self.qp.post_recv(RecvWR(wr_id=self.wr_id, num_sge=1,
                                     sg=[SGE(self.mr.buf, self.mr.length, self.mr.lkey)]))
        return {}

    def poll(self):
        deadline = time.monotonic() + POLL_TIMEOUT_S
        while time.monotonic() < deadline:
            n, wcs = self.cq.poll()
            if n > 0:
                return wcs[0]
            time.sleep(0.001)
        raise TimeoutError(f'no completion within {POLL_TIMEOUT_S} s')

    def poll_recv(self, cmd):
        wc = self.poll()
        invalidated = wc.imm_data if wc.wc_flags & e.IBV_WC_WITH_INV else None
        return {'status': wc.status, 'opcode': wc.opcode, 'byte_len': wc.byte_len, 'invalidated': invalidated}

    def bind_mw(self, cmd):
        access = 0
        for name in cmd.get('access', ['remote_write', 'remote_read']):
            access |= ACCESS[name]
        mw = MW(self.pd, e.IBV_MW_TYPE_2)
        self.windows.append(mw)
        # rxe_mw.c rxe_do_bind_mw keeps the window's index and takes the key (low 8 bits) from the request
        rkey = (mw.rkey & ~0xff) | ((mw.rkey + 1) & 0xff)
        info = MWBindInfo(self.mr, self.mr.buf + int(cmd.get('offset', 0)), int(cmd['length']), access)
        wc = self.one(lambda: self.qp.wr_bind_mw(mw, rkey, info))
        return {'status': wc.status, 'rkey': rkey}

    def bind_mw1(self, cmd):
        access = 0
        for name in cmd.get('access', ['remote_write', 'remote_read']):
            access |= ACCESS[name]
        mw = MW(self.pd, e.IBV_MW_TYPE_1)
        self.windows.append(mw)
        self.wr_id += 1
        info = MWBindInfo(self.mr, self.mr.buf + int(cmd.get('offset', 0)), int(cmd['length']), access)
        # ibv_bind_mw: the provider takes the next rkey (ibv_inc_rkey) and posts the BIND_MW work request
        self.qp.bind_mw(mw, MWBind(info, e.IBV_SEND_SIGNALED, self.wr_id))
        wc = self.poll()
        return {'status': wc.status, 'rkey': mw.rkey}

    def local_inv(self, cmd):
        wc = self.one(lambda: self.qp.wr_local_inv(int(cmd['rkey'])))
        return {'status': wc.status}

    def post(self, cmd):
        verb = cmd['verb']
        rkey = int(cmd.get('rkey', 0))
        addr = int(cmd.get('addr', 0))
        offset = int(cmd.get('offset', 0))
        if verb == 'write':
            data = bytes.fromhex(cmd['hex'])
            self.mr.write(data, len(data), offset)
            wc = self.one(lambda: self.qp.wr_rdma_write(rkey, addr), SGE(self.mr.buf + offset, len(data), self.mr.lkey))
        elif verb == 'read':
            length = int(cmd['length'])
            wc = self.one(lambda: self.qp.wr_rdma_read(rkey, addr), SGE(self.mr.buf + offset, length, self.mr.lkey))
            return {'status': wc.status, 'hex': bytes(self.mr.read(length, offset)).hex()}
        elif verb == 'atomic_write':
            value = bytes.fromhex(cmd['hex'])  # the 8 bytes as they go on the wire and land in memory (IBA A19)
            wc = self.one(lambda: self.qp.wr_atomic_write(rkey, addr, value))
        elif verb == 'flush':
            level = e.IBV_FLUSH_MR if cmd.get('level') == 'mr' else e.IBV_FLUSH_RANGE
            wc = self.one(lambda: self.qp.wr_flush(rkey, addr, int(cmd['length']), e.IBV_FLUSH_GLOBAL, level))
        elif verb == 'send_inv':
            data = bytes.fromhex(cmd['hex'])
            self.mr.write(data, len(data), offset)
            wc = self.one(lambda: self.qp.wr_send_inv(int(cmd['invalidate'])),
                          SGE(self.mr.buf + offset, len(data), self.mr.lkey))
        else:
            raise ValueError(f'unknown verb {verb!r}')
        return {'status': wc.status, 'opcode': wc.opcode}

    def one(self, op, sge=None):
        """Posts one signalled work request through the extended QP's wr_* calls and waits for its completion."""
        self.wr_id += 1
        self.qp.wr_start()
        self.qp.wr_id = self.wr_id
        self.qp.wr_flags = e.IBV_SEND_SIGNALED
        op()
        if sge is not None:
            self.qp.wr_set_sge(sge)
        self.qp.wr_complete()
        return self.poll()

    def qp_state(self, cmd):
        attr, _ = self.qp.query(e.IBV_QP_STATE)
        return {'state': attr.qp_state}


def serve(port):
    agent = Agent()
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(('0.0.0.0', port))
    server.listen(1)
    print(f'rxe_agent: listening on {port}', flush=True)
    conn, _ = server.accept()
    reader = conn.makefile('r')
    for line in reader:
        cmd = json.loads(line)
        op = cmd.get('op')
        if op == 'quit':
            conn.sendall(b'{"ok": true}\n')
            break
        try:
            answer = getattr(agent, op)(cmd)
            answer['ok'] = True
        except Exception as ex:  # every failure goes back to the test, which names the command
            answer = {'ok': False, 'error': f'{type(ex).__name__}: {ex}'}
        print(f'rxe_agent: {op} -> {answer}', flush=True)
        conn.sendall((json.dumps(answer) + '\n').encode())
    conn.close()
    print('rxe_agent: done', flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(serve(int(sys.argv[1]) if len(sys.argv) > 1 else 18515))
