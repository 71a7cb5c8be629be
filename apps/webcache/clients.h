/* clients.h — open connections per client address, for --max-connections-per-client
 * (clients.c). One table per server process, shared by its workers. */
#ifndef WC_CLIENTS_H
#define WC_CLIENTS_H

#include <stdint.h>

struct wc_clients;

struct wc_clients *wc_clients_new(unsigned limit); /* limit 0: no limit (nothing counted) */
/* Counts one more connection from addr: 1, or 0 (not counted) if addr has `limit` already. */
int wc_clients_add(struct wc_clients *t, uint32_t addr);
void wc_clients_del(struct wc_clients *t, uint32_t addr);
void wc_clients_free(struct wc_clients *t);

#endif
