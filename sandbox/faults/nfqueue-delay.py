#!/usr/bin/env python3
# Holds every packet of an NFQUEUE queue for a fixed time, then lets it pass, in arrival order:
# the sandbox's link delay (sandbox/faults/, docs/sandbox-faults.md). This kernel has no netem
# qdisc; it has iptables' NFQUEUE target, and Node cannot open a netlink socket, Python's
# standard library can. Run inside the pod's network namespace: a queue belongs to its namespace.
# Usage: nfqueue-delay.py QUEUE_NUM DELAY_MS. Prints "ready" once bound; exits on SIGTERM.
import collections, errno, select, signal, socket, struct, sys, time

NETLINK_NETFILTER = 12
NFNL_SUBSYS_QUEUE = 3
NFQNL_MSG_PACKET, NFQNL_MSG_CONFIG, NFQNL_MSG_VERDICT_BATCH = 0, 2, 3
NFQA_PACKET_HDR, NFQA_VERDICT_HDR = 1, 2
NFQA_CFG_CMD, NFQA_CFG_PARAMS, NFQA_CFG_QUEUE_MAXLEN, NFQA_CFG_MASK, NFQA_CFG_FLAGS = 1, 2, 3, 4, 5
NFQA_CFG_F_FAIL_OPEN = 1
SO_RCVBUFFORCE = 33
NFQNL_CFG_CMD_BIND = 1
NFQNL_COPY_META = 1
NF_ACCEPT = 1
NLM_F_REQUEST = 1
NLMSG_ERROR = 2


def attr(kind, payload):
    size = 4 + len(payload)
    return struct.pack('=HH', size, kind) + payload + b'\0' * ((4 - size % 4) % 4)


def message(kind, queue, attrs, seq):
    body = struct.pack('!BBH', socket.AF_UNSPEC, 0, queue) + b''.join(attrs)
    return struct.pack('=IHHII', 16 + len(body), (NFNL_SUBSYS_QUEUE << 8) | kind, NLM_F_REQUEST, seq, 0) + body


def packet_ids(data):
    """The packet ids of the NFQNL_MSG_PACKET messages in one datagram."""
    ids, off = [], 0
    while off + 16 <= len(data):
        length, kind = struct.unpack_from('=IH', data, off)
        if length < 16:
            break
        if kind == NLMSG_ERROR:
            # A verdict for a packet the kernel dropped meanwhile (its device went away): nothing to do.
            pass
        elif kind == (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET:
            a = off + 20
            while a + 4 <= off + length:
                alen, akind = struct.unpack_from('=HH', data, a)
                if alen < 4:
                    break
                if akind & 0x7fff == NFQA_PACKET_HDR:
                    ids.append(struct.unpack_from('!I', data, a + 4)[0])
                a += (alen + 3) & ~3
        off += (length + 3) & ~3
    return ids


def main():
    queue, delay = int(sys.argv[1]), int(sys.argv[2]) / 1000.0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
    # Past the machine's rmem_max (208 KiB here): a starved delayer must not lose packet ids to a
    # full socket buffer, which leaves those packets held in the kernel for good.
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
    s.bind((0, 0))
    s.send(message(NFQNL_MSG_CONFIG, queue, [attr(NFQA_CFG_CMD, struct.pack('!BBH', NFQNL_CFG_CMD_BIND, 0, 0))], 1))
    s.send(message(NFQNL_MSG_CONFIG, queue, [
        attr(NFQA_CFG_PARAMS, struct.pack('!IB', 0, NFQNL_COPY_META)),
        attr(NFQA_CFG_QUEUE_MAXLEN, struct.pack('!I', 65536)),
        # A full queue lets packets pass instead of dropping them.
        attr(NFQA_CFG_FLAGS, struct.pack('!I', NFQA_CFG_F_FAIL_OPEN)),
        attr(NFQA_CFG_MASK, struct.pack('!I', NFQA_CFG_F_FAIL_OPEN)),
    ], 2))
    print('ready', flush=True)
    held = collections.deque()  # (due, packet id), due times in arrival order
    seq = 3
    while True:
        now = time.monotonic()
        last = None
        while held and held[0][0] <= now:
            last = held.popleft()[1]
        if last is not None:
            # One batch verdict accepts every queued packet up to this id: ids rise in arrival order.
            s.send(message(NFQNL_MSG_VERDICT_BATCH, queue, [attr(NFQA_VERDICT_HDR, struct.pack('!II', NF_ACCEPT, last))], seq))
            seq += 1
        timeout = max(0.0, held[0][0] - now) if held else None
        if select.select([s], [], [], timeout)[0]:
            try:
                data = s.recv(1 << 16)
            except OSError as e:
                if e.errno != errno.ENOBUFS:
                    raise
                print('nfqueue-delay: socket buffer overrun, packets lost', file=sys.stderr, flush=True)
                continue
            due = time.monotonic() + delay
            held.extend((due, pid) for pid in packet_ids(data))


main()
