#!/usr/bin/python3
"""Independent ICRC oracles for roce-wire's tests.

Reads classic pcap files and prints, for every RoCEv2 frame (UDP destination port 4791), the ICRC the frame
carries and the ICRC computed two independent ways:

  zlib   written here from the masking rules of protocol-facts.md A.9 (rxe_icrc.c), with no code shared with
         roce-wire or scapy: CRC-32 (zlib.crc32, the IEEE polynomial) over
           8 x 0xFF  (the masked LRH of native InfiniBand)
           IPv4 header with TOS, TTL and header checksum set to ones, or
           IPv6 header with traffic class, flow label and hop limit set to ones,
           UDP header with the checksum set to ones,
           BTH with byte 4 (FECN, BECN, Resv6a) set to ones,
           everything after the BTH up to the ICRC,
         stored little-endian on the wire. It covers IPv6, which scapy 2.5 does not (it writes 0 there).
  scapy  scapy.contrib.roce (IPv4 only): the frame is dissected, its ICRC field is deleted and the packet is
         rebuilt, which makes BTH.post_build call BTH.compute_icrc, exactly as scapy's own roce.uts does.

Output, one line per frame (ICRC values are the four wire bytes in hex):
  file=F frame=N roce=0
  file=F frame=N roce=1 ip=4|6 opcode=0xNN carried=xxxxxxxx zlib=xxxxxxxx scapy=xxxxxxxx|none
and a last line
  summary frames=N roce=N zlib_match=N scapy_checked=N scapy_match=N

Usage: icrc_oracle.py [--no-scapy] FILE.pcap [FILE.pcap ...]
Run it with the Debian interpreter (/usr/bin/python3), where python3-scapy is importable.
"""

import struct
import sys
import zlib

ROCE_V2_PORT = 4791
ETHERTYPE_IPV4 = 0x0800
ETHERTYPE_IPV6 = 0x86DD
ETHERTYPE_VLAN = 0x8100
IPPROTO_UDP = 17
UDP_LENGTH = 8
BTH_LENGTH = 12
ICRC_LENGTH = 4


def read_pcap(path):
    """Yield the captured bytes of every record of a classic pcap file (either byte order, us or ns)."""
    with open(path, 'rb') as f:
        header = f.read(24)
        if len(header) < 24:
            raise ValueError('%s: not a pcap file (short header)' % path)
        magic_le = struct.unpack('<I', header[:4])[0]
        if magic_le in (0xA1B2C3D4, 0xA1B23C4D):
            order = '<'
        elif struct.unpack('>I', header[:4])[0] in (0xA1B2C3D4, 0xA1B23C4D):
            order = '>'
        else:
            raise ValueError('%s: not a classic pcap file' % path)
        link_type = struct.unpack(order + 'I', header[20:24])[0]
        if link_type != 1:
            raise ValueError('%s: link type %d is not Ethernet' % (path, link_type))
        while True:
            record = f.read(16)
            if not record:
                return
            if len(record) < 16:
                raise ValueError('%s: truncated record header' % path)
            included = struct.unpack(order + 'I', record[8:12])[0]
            data = f.read(included)
            if len(data) < included:
                raise ValueError('%s: truncated record' % path)
            yield data


def locate(frame):
    """Return (ip_version, ip_offset, ip_header_length, udp_offset, icrc_offset) of a RoCEv2 frame, or None."""
    if len(frame) < 14:
        return None
    ip = 14
    ethertype = struct.unpack('>H', frame[12:14])[0]
    if ethertype == ETHERTYPE_VLAN:
        if len(frame) < 18:
            return None
        ethertype = struct.unpack('>H', frame[16:18])[0]
        ip = 18
    if ethertype == ETHERTYPE_IPV4:
        if len(frame) < ip + 20 or frame[ip] >> 4 != 4:
            return None
        header_length = (frame[ip] & 0x0F) * 4
        total_length = struct.unpack('>H', frame[ip + 2:ip + 4])[0]
        protocol = frame[ip + 9]
        end = ip + total_length
        version = 4
    elif ethertype == ETHERTYPE_IPV6:
        if len(frame) < ip + 40 or frame[ip] >> 4 != 6:
            return None
        header_length = 40
        payload_length = struct.unpack('>H', frame[ip + 4:ip + 6])[0]
        protocol = frame[ip + 6]
        end = ip + 40 + payload_length
        version = 6
    else:
        return None
    udp = ip + header_length
    if protocol != IPPROTO_UDP or end > len(frame) or udp + UDP_LENGTH + BTH_LENGTH + ICRC_LENGTH > end:
        return None
    if struct.unpack('>H', frame[udp + 2:udp + 4])[0] != ROCE_V2_PORT:
        return None
    return version, ip, header_length, udp, end - ICRC_LENGTH


def zlib_icrc(frame, version, ip, header_length, udp, icrc_offset):
    """The ICRC by the masking rules of protocol-facts.md A.9, as the 4 wire bytes."""
    masked = bytearray(frame[ip:udp + UDP_LENGTH + BTH_LENGTH])
    if version == 4:
        masked[1] = 0xFF                      # TOS (DSCP + ECN)
        masked[8] = 0xFF                      # TTL
        masked[10:12] = b'\xff\xff'           # header checksum
    else:
        masked[0] |= 0x0F                     # low nibble of the traffic class
        masked[1:4] = b'\xff\xff\xff'         # rest of the traffic class and the flow label
        masked[7] = 0xFF                      # hop limit
    udp_in_masked = udp - ip
    masked[udp_in_masked + 6:udp_in_masked + 8] = b'\xff\xff'   # UDP checksum
    masked[udp_in_masked + UDP_LENGTH + 4] = 0xFF                # BTH FECN, BECN, Resv6a
    rest = frame[udp + UDP_LENGTH + BTH_LENGTH:icrc_offset]
    crc = zlib.crc32(b'\xff' * 8 + bytes(masked) + rest) & 0xFFFFFFFF
    return struct.pack('<I', crc)


def scapy_icrc(frame):
    """scapy's ICRC of an IPv4 RoCEv2 frame, as the 4 wire bytes."""
    from scapy.layers.l2 import Ether
    from scapy.contrib.roce import BTH
    packet = Ether(frame)
    if BTH not in packet:
        raise ValueError('scapy found no BTH')
    packet[BTH].icrc = None
    rebuilt = Ether(bytes(packet))
    return struct.pack('>I', rebuilt[BTH].icrc)


def main(argv):
    use_scapy = '--no-scapy' not in argv
    paths = [a for a in argv if a != '--no-scapy']
    if not paths:
        sys.stderr.write(__doc__)
        return 2
    frames = roce = zlib_match = scapy_checked = scapy_match = 0
    out = sys.stdout
    for file_index, path in enumerate(paths):
        for number, frame in enumerate(read_pcap(path), start=1):
            frames += 1
            where = locate(frame)
            if where is None:
                out.write('file=%d frame=%d roce=0\n' % (file_index, number))
                continue
            roce += 1
            version, ip, header_length, udp, icrc_offset = where
            carried = frame[icrc_offset:icrc_offset + ICRC_LENGTH]
            by_zlib = zlib_icrc(frame, version, ip, header_length, udp, icrc_offset)
            if by_zlib == carried:
                zlib_match += 1
            by_scapy = 'none'
            if use_scapy and version == 4:
                value = scapy_icrc(frame)
                scapy_checked += 1
                if value == carried:
                    scapy_match += 1
                by_scapy = value.hex()
            opcode = frame[udp + UDP_LENGTH]
            out.write('file=%d frame=%d roce=1 ip=%d opcode=0x%02x carried=%s zlib=%s scapy=%s\n' % (
                file_index, number, version, opcode, carried.hex(), by_zlib.hex(), by_scapy))
    out.write('summary frames=%d roce=%d zlib_match=%d scapy_checked=%d scapy_match=%d\n' % (
        frames, roce, zlib_match, scapy_checked, scapy_match))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
