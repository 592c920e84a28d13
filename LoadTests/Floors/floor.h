// floor.h: what the reference floors (echo-floor.c, chat-floor.c) share: the
// listening socket on 127.0.0.1, accepting, and the RFC 6455 upgrade. Each
// floor is one translation unit that includes this once.
#ifndef SWITCHBOARD_FLOOR_H
#define SWITCHBOARD_FLOOR_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

// A non-blocking listener on 127.0.0.1:port, registered (level-triggered) with
// a new epoll instance stored in *epfd. Exits with a message on failure, and
// prints "NAME listening on 127.0.0.1:PORT" once listening.
static int floor_listen(const char *name, int port, int *epfd) {
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), on = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (listener < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) != 0 ||
      listen(listener, 4096) != 0) {
    fprintf(stderr, "%s: bind/listen: %s\n", name, strerror(errno));
    exit(1);
  }
  *epfd = epoll_create1(0);
  struct epoll_event listen_event = {.events = EPOLLIN, .data.fd = listener};
  if (*epfd < 0 || epoll_ctl(*epfd, EPOLL_CTL_ADD, listener, &listen_event) != 0) {
    fprintf(stderr, "%s: epoll: %s\n", name, strerror(errno));
    exit(1);
  }
  printf("%s listening on 127.0.0.1:%d\n", name, port);
  fflush(stdout);
  return listener;
}

// Accepts every pending connection below max_fds, with TCP_NODELAY, watched
// edge-triggered for input and hang-up; calls accepted(fd) for each.
static void floor_accept_all(int listener, int epfd, int max_fds, void (*accepted)(int fd)) {
  int client, on = 1;
  while ((client = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
    if (client >= max_fds) {
      close(client);
      continue;
    }
    setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    struct epoll_event event = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET, .data.fd = client};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, client, &event) != 0) {
      close(client);
      continue;
    }
    accepted(client);
  }
}

// Writes the 101 response to the upgrade request in request[0..<count] (one
// read's worth; request[count] must be writable) into response, and returns
// its length, or -1 when the request is incomplete or has no usable key.
static int floor_upgrade_response(unsigned char *request, size_t count, char *response, size_t capacity) {
  static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  request[count] = 0;
  if (!strstr((char *)request, "\r\n\r\n")) return -1;
  char *key = strcasestr((char *)request, "\r\nSec-WebSocket-Key:");
  if (!key) return -1;
  key += strlen("\r\nSec-WebSocket-Key:");
  key += strspn(key, " \t");
  size_t key_length = strcspn(key, " \t\r\n");
  if (key_length == 0 || key_length > 64) return -1;

  char joined[64 + sizeof guid];
  memcpy(joined, key, key_length);
  memcpy(joined + key_length, guid, sizeof guid);
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1((unsigned char *)joined, key_length + sizeof guid - 1, digest);
  char accept_value[32];
  EVP_EncodeBlock((unsigned char *)accept_value, digest, SHA_DIGEST_LENGTH);
  return snprintf(response, capacity,
                  "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  "Sec-WebSocket-Accept: %s\r\n%s\r\n",
                  accept_value,
                  strstr((char *)request, "switchboard.v1") ? "Sec-WebSocket-Protocol: switchboard.v1\r\n" : "");
}

#endif
