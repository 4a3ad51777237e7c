/**
 * The thread's code (plain JavaScript, so the thread needs no TypeScript loader). It owns the socket and
 * answers PUSH_DATA (12-byte header and a body) with PUSH_ACK and PULL_DATA (12 bytes) with PULL_ACK the moment they
 * arrive, as the Semtech protocol asks ("acknowledge immediately all the PUSH_DATA packets received"); whatever
 * arrived in one turn of its loop goes to the main thread as one message (one transferred buffer), flagged with
 * whether it was acknowledged. It sends what the main thread asks it to, and drops datagrams unanswered while
 * more than the backlog limit given with "bind" wait for the main thread.
 */
import { Buffer } from "node:buffer";
import { createSocket } from "node:dgram";
import { setImmediate } from "node:timers";
import { parentPort } from "node:worker_threads";
const socket = createSocket({ type: "udp4", reuseAddr: false });
let bound = false;
let batch = [];
let bytes = 0;
let backlog = 0;
let backlogLimit = Infinity;
const flush = () => {
  const buffer = new Uint8Array(bytes);
  const lengths = [],
    ports = [],
    addresses = [],
    acked = [];
  let offset = 0;
  for (const [msg, rinfo, ack] of batch) {
    buffer.set(msg, offset);
    offset += msg.length;
    lengths.push(msg.length);
    ports.push(rinfo.port);
    addresses.push(rinfo.address);
    acked.push(ack);
  }
  backlog += bytes;
  batch = [];
  bytes = 0;
  parentPort.postMessage({ type: "datagrams", buffer, lengths, ports, addresses, acked }, [buffer.buffer]);
};
socket.on("message", (msg, rinfo) => {
  if (backlog + bytes > backlogLimit) return;
  let ack = 0;
  if (msg.length >= 4 && (msg[0] === 1 || msg[0] === 2)) {
    if (msg[3] === 0 && msg.length > 12) ack = 1;
    else if (msg[3] === 2 && msg.length === 12) ack = 4;
  }
  if (ack !== 0) socket.send(Buffer.from([msg[0], msg[1], msg[2], ack]), rinfo.port, rinfo.address);
  if (batch.length === 0) setImmediate(flush);
  batch.push([msg, rinfo, ack !== 0]);
  bytes += msg.length;
});
socket.on("error", (err) => parentPort.postMessage({ type: "error", message: err.message, code: err.code }));
parentPort.on("message", (m) => {
  if (m.type === "read") {
    backlog -= m.bytes;
  } else if (m.type === "send") {
    if (bound)
      socket.send(m.datagram, m.port, m.address, (err) => {
        if (err) parentPort.postMessage({ type: "error", message: err.message, code: err.code });
      });
  } else if (m.type === "bind") {
    const failed = (err) => parentPort.postMessage({ type: "bindFailed", message: err.message, code: err.code });
    socket.once("error", failed);
    socket.bind(m.port, m.host, () => {
      socket.off("error", failed);
      bound = true;
      backlogLimit = m.backlogBytes;
      try {
        socket.setRecvBufferSize(m.receiveBufferBytes);
      } catch {
        // The kernel caps it (net.core.rmem_max); the default buffer still works.
      }
      parentPort.postMessage({ type: "listening", port: socket.address().port });
    });
  } else if (m.type === "close") {
    socket.close(() => parentPort.close());
  }
});
