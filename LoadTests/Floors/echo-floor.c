// echo-floor: the least a WebSocket echo server can do per message on this
// kernel, as a reference row for scripts/bench-transport.
//
//   echo-floor --port P
//
// One thread, one edge-triggered epoll instance, one read() and one write()
// per burst of input, no allocation after start-up. It speaks just enough of
// RFC 6455 for transport-bench: the upgrade handshake (any path), and masked
// client frames of at most 125 bytes, which it echoes unmasked with the same
// opcode (a close frame is echoed, then the socket closed). Anything else
// closes the connection. It is not a server to deploy: it exists to show how
// much of a round trip's CPU time the kernel's loopback TCP and the
// epoll_wait sleep take, whatever the server does above them.
// Prints "echo-floor listening on 127.0.0.1:PORT" once listening.
#include "floor.h"

enum { max_fds = 65536, max_small_frame = 2 + 4 + 125, input_size = 65536 };

// Per connection: whether the upgrade is done, and the tail of a frame that a
// read split (at most one small frame's worth).
struct peer {
  unsigned char upgraded;
  unsigned char pending_len;
  unsigned char pending[max_small_frame];
};

static struct peer peers[max_fds];
static unsigned char input[max_small_frame + input_size];
static unsigned char output[input_size];

static void drop(int fd) {
  close(fd);
  peers[fd].upgraded = 0;
  peers[fd].pending_len = 0;
}

// Returns 0 when the peer was dropped. A 64-byte echo always fits the socket
// buffer; a peer that stops reading is dropped rather than queued for.
static int write_all_or_drop(int fd, const void *bytes, size_t count) {
  if (write(fd, bytes, count) == (ssize_t)count) return 1;
  drop(fd);
  return 0;
}

static void upgrade(int fd, unsigned char *request, size_t count) {
  char response[256];
  int n = floor_upgrade_response(request, count, response, sizeof response);
  if (n < 0) return drop(fd);  // one read carries the whole request
  if (write_all_or_drop(fd, response, (size_t)n)) peers[fd].upgraded = 1;
}

// Echoes every complete frame in input[0..<count]; keeps a split frame's head.
static void echo_frames(int fd, size_t count) {
  size_t at = 0, out = 0;
  int closing = 0;
  while (at + 2 <= count) {
    unsigned char first = input[at], second = input[at + 1];
    size_t length = second & 0x7f;
    if ((first & 0x70) || !(second & 0x80) || length > 125) return drop(fd);
    if (at + 6 + length > count) break;
    const unsigned char *mask = input + at + 2, *payload = input + at + 6;
    output[out++] = first;
    output[out++] = (unsigned char)length;
    for (size_t i = 0; i < length; i++) output[out++] = payload[i] ^ mask[i & 3];
    at += 6 + length;
    if ((first & 0x0f) == 0x8) {
      closing = 1;
      break;
    }
  }
  if (out > 0 && !write_all_or_drop(fd, output, out)) return;
  if (closing) return drop(fd);
  size_t rest = count - at;
  if (rest > max_small_frame) return drop(fd);
  memcpy(peers[fd].pending, input + at, rest);
  peers[fd].pending_len = (unsigned char)rest;
}

// Nothing to set up: a peer's state is zero until its upgrade.
static void accepted(int fd) { (void)fd; }

// `hangup`: the peer's FIN is queued behind the data, and no further edge
// will come for it, so the connection ends once its input is echoed.
static void readable(int fd, int hangup) {
  struct peer *peer = &peers[fd];
  for (;;) {
    size_t head = peer->pending_len;
    memcpy(input, peer->pending, head);
    ssize_t n = read(fd, input + head, input_size - 1);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return drop(fd);
    if (n < 0) return;
    if (!peer->upgraded) {
      // Nothing is kept before the upgrade: the request comes in one read.
      upgrade(fd, input, (size_t)n);
    } else {
      echo_frames(fd, head + (size_t)n);
    }
    if (!peer->upgraded) return;  // dropped
    // A short read drained the socket; more input raises a new edge.
    if (n < input_size - 1) {
      if (hangup) drop(fd);
      return;
    }
  }
}

int main(int argc, char **argv) {
  int port = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--port") == 0) port = atoi(argv[i + 1]);
  }
  if (port < 0 || port > 65535) {
    fprintf(stderr, "usage: echo-floor --port PORT\n");
    return 2;
  }
  int epfd, listener = floor_listen("echo-floor", port, &epfd);

  static struct epoll_event events[512];
  for (;;) {
    int n = epoll_wait(epfd, events, 512, -1);
    if (n < 0 && errno != EINTR) {
      perror("echo-floor: epoll_wait");
      return 1;
    }
    for (int i = 0; i < n; i++) {
      int fd = events[i].data.fd;
      if (fd != listener) {
        readable(fd, (events[i].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0);
        continue;
      }
      floor_accept_all(listener, epfd, max_fds, accepted);
    }
  }
}
