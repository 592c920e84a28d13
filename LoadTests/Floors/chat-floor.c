// chat-floor: the least a chat gateway can do per message on this kernel, as
// a reference for the `conversations` scenario (scripts/bench-chat-floor).
//
//   chat-floor --port P [--flush-ms W]
//
// It answers the load harness (LoadTests/LoadTest) as the gateway does, with
// frames of the same shape and about the same size, but stores nothing,
// checks no token and keeps no history: a session is a counter and a list of
// members. What is left is the part of a message's cost that no gateway
// escapes: one edge-triggered epoll instance on one thread, the sender's
// frame read, the `ack` and `message` frames written, every outgoing frame
// encoded once and copied to each member, and one write() per connection per
// pass over the ready sockets (the sender's ack and copy travel together).
// With --flush-ms W, output is written every W ms instead of after every
// pass: fewer, larger writes per connection for up to W ms more latency, the
// trade a gateway could make to spend less CPU per message.
//
// Protocol subset (docs/protocol.md): hello -> welcome; session.create -> session
// (the creator is joined); join -> joined (no replay); send -> ack to the
// sender and message to every member; anything else -> error. Masked client
// frames up to 65,535 bytes, unfragmented; ping -> pong; close -> close.
// It is not a server to deploy. Prints "chat-floor listening on
// 127.0.0.1:PORT" once listening.
#include "floor.h"  // first: it defines _GNU_SOURCE

#include <time.h>

enum {
  max_fds = 20000,
  max_sessions = 65536,
  max_members = 8,
  max_frame = 4 + 4 + 65535,  // header, mask, payload
  read_size = 256 * 1024,
  out_capacity = 256 * 1024,
};

// Session ids look like the gateway's UUIDs; the last 12 hex digits are the index.
static const char session_prefix[] = "00000000-0000-4000-8000-";
enum { session_id_length = 36 };
static const char created_at[] = "2026-11-22T08:00:01.234Z";

struct session {
  long long last_seq;
  int members;
  int member_fds[max_members];
};

struct peer {
  unsigned char open, upgraded, dirty, watching_writable;
  int session;  // the one joined (the harness joins one per connection), or -1
  size_t pending_length;
  unsigned char *pending;  // a frame split across reads (allocated on first use)
  size_t out_length, out_sent;
  unsigned char *out;  // allocated on upgrade
};

static struct peer peers[max_fds];
static struct session sessions[max_sessions];
static int session_count;
static unsigned char input[max_frame + read_size];
static unsigned char payload_scratch[max_frame];
static char frame_text[max_frame + 1024];  // an outgoing frame: the body plus the gateway's fields
static int dirty_fds[max_fds];
static int dirty_count;
static int epfd;

static void drop(int fd) {
  struct peer *peer = &peers[fd];
  if (!peer->open) return;
  if (peer->session >= 0) {
    struct session *session = &sessions[peer->session];
    for (int i = 0; i < session->members; i++) {
      if (session->member_fds[i] == fd) {
        session->member_fds[i] = session->member_fds[--session->members];
        break;
      }
    }
  }
  close(fd);
  free(peer->pending);
  free(peer->out);
  // A dirty fd stays listed until the pass's flush (which skips it closed, or
  // flushes its next owner): keeping the flag keeps it listed once.
  unsigned char dirty = peer->dirty;
  memset(peer, 0, sizeof *peer);
  peer->dirty = dirty;
  peer->session = -1;
}

// Queues bytes for fd; the pass's flush writes them. A peer that has let
// out_capacity bytes pile up unread is dropped rather than queued for.
static void queue(int fd, const void *bytes, size_t count) {
  struct peer *peer = &peers[fd];
  if (!peer->open || !peer->out) return;
  if (peer->out_length + count > out_capacity) return drop(fd);
  memcpy(peer->out + peer->out_length, bytes, count);
  peer->out_length += count;
  if (!peer->dirty) {
    peer->dirty = 1;
    dirty_fds[dirty_count++] = fd;
  }
}

static void queue_frame(int fd, unsigned char opcode, const void *payload, size_t length) {
  unsigned char header[4] = {(unsigned char)(0x80 | opcode)};
  size_t header_length = 2;
  if (length < 126) {
    header[1] = (unsigned char)length;
  } else {
    header[1] = 126;
    header[2] = (unsigned char)(length >> 8);
    header[3] = (unsigned char)length;
    header_length = 4;
  }
  queue(fd, header, header_length);
  queue(fd, payload, length);
}

static void queue_text(int fd, const char *text, int length) {
  if (length > 0 && (size_t)length <= 65535) return queue_frame(fd, 0x1, text, (size_t)length);
  fprintf(stderr, "chat-floor: a %d-byte frame is beyond this floor; dropping connection %d\n", length, fd);
  drop(fd);
}

static void watch(int fd, int writable) {
  struct epoll_event event = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET | (writable ? EPOLLOUT : 0), .data.fd = fd};
  if (epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &event) != 0) drop(fd);
  else peers[fd].watching_writable = (unsigned char)writable;
}

// One write per dirty connection. What the socket does not take waits for
// EPOLLOUT, asked for only then: kept on, every ACK that frees send-buffer
// space would raise an event.
static void flush(int fd) {
  struct peer *peer = &peers[fd];
  while (peer->open && peer->out_sent < peer->out_length) {
    ssize_t n = write(fd, peer->out + peer->out_sent, peer->out_length - peer->out_sent);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      if (!peer->watching_writable) watch(fd, 1);
      return;
    }
    if (n <= 0) return drop(fd);
    peer->out_sent += (size_t)n;
  }
  if (!peer->open) return;
  peer->out_length = peer->out_sent = 0;
  if (peer->watching_writable) watch(fd, 0);
}

static void flush_dirty(void) {
  for (int i = 0; i < dirty_count; i++) {
    int fd = dirty_fds[i];
    peers[fd].dirty = 0;
    flush(fd);
  }
  dirty_count = 0;
}

// The string value of "key" in a flat JSON object without escapes (the
// harness's frames), or NULL.
static const char *string_member(const char *json, size_t length, const char *key, size_t *value_length) {
  char needle[40];
  int needle_length = snprintf(needle, sizeof needle, "\"%s\":\"", key);
  const char *at = memmem(json, length, needle, (size_t)needle_length);
  if (!at) return NULL;
  const char *value = at + needle_length, *end = memchr(value, '"', length - (size_t)(value - json));
  if (!end) return NULL;
  *value_length = (size_t)(end - value);
  return value;
}

static int session_index(const char *id, size_t length) {
  if (length != session_id_length || memcmp(id, session_prefix, sizeof session_prefix - 1) != 0) return -1;
  char digits[13];
  memcpy(digits, id + sizeof session_prefix - 1, 12);
  digits[12] = 0;
  char *end;
  long index = strtol(digits, &end, 16);
  return (*end == 0 && index >= 0 && index < session_count) ? (int)index : -1;
}

// Joins fd to the session; false when it is in another one or the session is full.
static int join(int fd, int index) {
  struct session *session = &sessions[index];
  if (peers[fd].session == index) return 1;
  if (peers[fd].session >= 0 || session->members == max_members) return 0;
  session->member_fds[session->members++] = fd;
  peers[fd].session = index;
  return 1;
}

// An error frame with docs/protocol.md's codes; `ref` (may be NULL) as the request's.
static void error_frame(int fd, const char *code, const char *ref, size_t ref_length) {
  int n = ref ? snprintf(frame_text, sizeof frame_text,
                         "{\"type\":\"error\",\"ref\":\"%.*s\",\"code\":\"%s\",\"message\":\"chat-floor\"}",
                         (int)ref_length, ref, code)
              : snprintf(frame_text, sizeof frame_text,
                         "{\"type\":\"error\",\"code\":\"%s\",\"message\":\"chat-floor\"}", code);
  queue_text(fd, frame_text, n);
}

static void send_message(int fd, const char *json, size_t length) {
  size_t ref_length = 0, id_length = 0, client_id_length = 0, body_length = 0;
  const char *ref = string_member(json, length, "ref", &ref_length);
  const char *session_id = string_member(json, length, "session_id", &id_length);
  const char *client_id = string_member(json, length, "client_msg_id", &client_id_length);
  const char *body = string_member(json, length, "body", &body_length);
  int index = session_id ? session_index(session_id, id_length) : -1;
  if (!ref || !client_id || !body) return error_frame(fd, "bad_request", ref, ref_length);
  if (index < 0 || peers[fd].session != index) return error_frame(fd, "forbidden", ref, ref_length);
  long long seq = ++sessions[index].last_seq;
  // A time-ordered id of the gateway's shape: session index and seq.
  char message_id[37];
  snprintf(message_id, sizeof message_id, "0192f000-%04x-7000-8000-%012llx", index & 0xffff, seq);

  int n = snprintf(frame_text, sizeof frame_text,
                   "{\"type\":\"ack\",\"ref\":\"%.*s\",\"session_id\":\"%.*s\",\"client_msg_id\":\"%.*s\","
                   "\"seq\":%lld,\"id\":\"%s\",\"created_at\":\"%s\",\"duplicate\":false}",
                   (int)ref_length, ref, (int)id_length, session_id, (int)client_id_length, client_id, seq,
                   message_id, created_at);
  queue_text(fd, frame_text, n);

  // Encoded once, copied to every member (the sender's copy follows its ack).
  n = snprintf(frame_text, sizeof frame_text,
               "{\"type\":\"message\",\"session_id\":\"%.*s\",\"seq\":%lld,\"id\":\"%s\",\"client_msg_id\":\"%.*s\","
               "\"kind\":\"text\",\"body\":\"%.*s\",\"sender\":{\"id\":\"load-%d\",\"role\":\"visitor\","
               "\"name\":null},\"created_at\":\"%s\"}",
               (int)id_length, session_id, seq, message_id, (int)client_id_length, client_id, (int)body_length, body,
               fd, created_at);
  // Backwards: a member dropped on overflow is swapped with the last one.
  struct session *session = &sessions[index];
  for (int i = session->members - 1; i >= 0; i--) queue_text(session->member_fds[i], frame_text, n);
}

static void text_frame(int fd, const char *json, size_t length) {
  size_t type_length;
  const char *type = string_member(json, length, "type", &type_length);
  int n;
  if (!type) return error_frame(fd, "bad_request", NULL, 0);
  if (type_length == 4 && memcmp(type, "send", 4) == 0) return send_message(fd, json, length);
  if (type_length == 5 && memcmp(type, "hello", 5) == 0) {
    n = snprintf(frame_text, sizeof frame_text,
                 "{\"type\":\"welcome\",\"conn_id\":\"c%d\",\"user\":{\"id\":\"load-%d\",\"role\":\"visitor\","
                 "\"name\":null},\"workspace_id\":\"%s000000000000\",\"heartbeat_s\":25,\"limits\":"
                 "{\"max_message_bytes\":65536,\"max_body_bytes\":16384}}",
                 fd, fd, session_prefix);
    return queue_text(fd, frame_text, n);
  }
  if (type_length == 14 && memcmp(type, "session.create", 14) == 0) {
    if (session_count == max_sessions || peers[fd].session >= 0) return error_frame(fd, "overloaded", NULL, 0);
    int index = session_count++;
    join(fd, index);
    n = snprintf(frame_text, sizeof frame_text,
                 "{\"type\":\"session\",\"ref\":\"setup\",\"session\":{\"id\":\"%s%012x\",\"status\":\"open\","
                 "\"last_seq\":0,\"created_at\":\"%s\"}}",
                 session_prefix, index, created_at);
    return queue_text(fd, frame_text, n);
  }
  if (type_length == 4 && memcmp(type, "join", 4) == 0) {
    size_t id_length;
    const char *id = string_member(json, length, "session_id", &id_length);
    int index = id ? session_index(id, id_length) : -1;
    if (index < 0) return error_frame(fd, "not_found", NULL, 0);
    if (!join(fd, index)) return error_frame(fd, "overloaded", NULL, 0);  // one session per connection, 8 members
    n = snprintf(frame_text, sizeof frame_text,
                 "{\"type\":\"joined\",\"ref\":\"setup\",\"session_id\":\"%.*s\",\"last_seq\":%lld,"
                 "\"truncated\":false}",
                 (int)id_length, id, sessions[index].last_seq);
    return queue_text(fd, frame_text, n);
  }
  error_frame(fd, "bad_request", NULL, 0);
}

// Handles every complete frame in input[0..<count]; keeps a split frame.
static void frames(int fd, size_t count) {
  size_t at = 0;
  while (at + 2 <= count) {
    unsigned char first = input[at], second = input[at + 1];
    size_t length = second & 0x7f, header = 2;
    if ((first & 0x70) || !(first & 0x80) || !(second & 0x80) || length == 127) return drop(fd);
    if (length == 126) {
      if (at + 4 > count) break;
      length = (size_t)input[at + 2] << 8 | input[at + 3];
      header = 4;
    }
    if (at + header + 4 + length > count) break;
    const unsigned char *mask = input + at + header, *payload = input + at + header + 4;
    for (size_t i = 0; i < length; i++) payload_scratch[i] = payload[i] ^ mask[i & 3];
    at += header + 4 + length;
    switch (first & 0x0f) {
      case 0x1: text_frame(fd, (const char *)payload_scratch, length); break;
      case 0x9: queue_frame(fd, 0xA, payload_scratch, length); break;
      case 0xA: break;
      case 0x8:
        queue_frame(fd, 0x8, payload_scratch, length < 2 ? length : 2);
        flush(fd);
        return drop(fd);
      default: return drop(fd);
    }
    if (!peers[fd].open) return;
  }
  struct peer *peer = &peers[fd];
  size_t rest = count - at;
  if (rest > 0 && !peer->pending && !(peer->pending = malloc(max_frame))) return drop(fd);
  if (rest > 0) memcpy(peer->pending, input + at, rest);
  peer->pending_length = rest;
}

static void upgrade(int fd, unsigned char *request, size_t count) {
  char response[256];
  int n = floor_upgrade_response(request, count, response, sizeof response);
  if (n < 0) return drop(fd);  // one read carries the whole request
  if (!(peers[fd].out = malloc(out_capacity))) return drop(fd);
  peers[fd].upgraded = 1;
  queue(fd, response, (size_t)n);
}

static void accepted(int fd) {
  peers[fd].open = 1;
  peers[fd].session = -1;
}

// `hangup`: the peer's FIN is queued behind the data, and no further edge
// will come for it, so the connection ends once its input is handled.
static void readable(int fd, int hangup) {
  struct peer *peer = &peers[fd];
  for (;;) {
    size_t head = peer->pending_length;
    if (head) memcpy(input, peer->pending, head);
    ssize_t n = read(fd, input + head, read_size - 1);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return drop(fd);
    if (n < 0) return;
    if (!peer->upgraded) {
      upgrade(fd, input, (size_t)n);  // nothing is kept before the upgrade
    } else {
      frames(fd, head + (size_t)n);
    }
    if (!peer->open || !peer->upgraded) return drop(fd);
    if (n < read_size - 1) {
      if (hangup) {
        flush(fd);
        drop(fd);
      }
      return;
    }
  }
}

static long long now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

int main(int argc, char **argv) {
  int port = -1, flush_ms = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--port") == 0) port = atoi(argv[i + 1]);
    if (strcmp(argv[i], "--flush-ms") == 0) flush_ms = atoi(argv[i + 1]);
  }
  if (port < 0 || port > 65535 || flush_ms < 0 || flush_ms > 1000) {
    fprintf(stderr, "usage: chat-floor --port PORT [--flush-ms 0-1000]\n");
    return 2;
  }
  for (int fd = 0; fd < max_fds; fd++) peers[fd].session = -1;
  int listener = floor_listen("chat-floor", port, &epfd);

  static struct epoll_event events[1024];
  long long next_flush = now_ms() + flush_ms;
  for (;;) {
    int timeout = -1;
    if (flush_ms > 0 && dirty_count > 0) {
      long long left = next_flush - now_ms();
      timeout = left > 0 ? (int)left : 0;
    }
    int n = epoll_wait(epfd, events, 1024, timeout);
    if (n < 0 && errno != EINTR) {
      perror("chat-floor: epoll_wait");
      return 1;
    }
    for (int i = 0; i < n; i++) {
      int fd = events[i].data.fd;
      if (fd != listener) {
        if (events[i].events & EPOLLOUT) flush(fd);
        if (peers[fd].open && (events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) {
          readable(fd, (events[i].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0);
        }
        continue;
      }
      floor_accept_all(listener, epfd, max_fds, accepted);
    }
    if (flush_ms == 0) {
      flush_dirty();
    } else if (now_ms() >= next_flush) {
      flush_dirty();
      next_flush = now_ms() + flush_ms;
    }
  }
}
