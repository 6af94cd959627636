/* h2lib.h — nghttp2, loaded on first use like OpenSSL (tlslib.h, whose
 * loader opens it too).  Only a brokered host whose client and upstream both
 * speak HTTP/2 uses it (brokerh2.c), so no other start of jail pays for it;
 * without the library the broker speaks HTTP/1.1 alone. */
#ifndef JAIL_H2LIB_H
#define JAIL_H2LIB_H
#include "util.h"

#include <nghttp2/nghttp2.h>
#include <stdbool.h>

/* the soname 1.x has kept since 1.0 */
#define LIBNGHTTP2 "libnghttp2.so.14"

#define H2LIB_FUNCS(X) \
	X(nghttp2_session_callbacks_new) X(nghttp2_session_callbacks_del) \
	X(nghttp2_session_callbacks_set_on_begin_headers_callback) \
	X(nghttp2_session_callbacks_set_on_header_callback) \
	X(nghttp2_session_callbacks_set_on_frame_recv_callback) \
	X(nghttp2_session_callbacks_set_on_data_chunk_recv_callback) \
	X(nghttp2_session_callbacks_set_on_stream_close_callback) X(nghttp2_option_new) \
	X(nghttp2_option_del) X(nghttp2_option_set_no_auto_window_update) \
	X(nghttp2_option_set_max_send_header_block_length) X(nghttp2_session_server_new3) \
	X(nghttp2_session_client_new3) X(nghttp2_session_del) X(nghttp2_submit_settings) \
	X(nghttp2_session_set_local_window_size) X(nghttp2_session_mem_recv) \
	X(nghttp2_session_mem_send) X(nghttp2_session_want_read) X(nghttp2_session_want_write) \
	X(nghttp2_submit_request) X(nghttp2_submit_response) X(nghttp2_submit_headers) \
	X(nghttp2_submit_trailer) X(nghttp2_submit_rst_stream) X(nghttp2_submit_goaway) \
	X(nghttp2_session_terminate_session) X(nghttp2_session_resume_data) \
	X(nghttp2_session_consume) X(nghttp2_session_get_stream_user_data) \
	X(nghttp2_session_set_stream_user_data) X(nghttp2_session_get_last_proc_stream_id) \
	X(nghttp2_strerror)

#define H2LIB_FIELD(f) __typeof__(&f) f;
struct h2lib {
	H2LIB_FUNCS(H2LIB_FIELD)
};
#undef H2LIB_FIELD

extern struct h2lib h2lib;

/* Open libnghttp2 and resolve every function above; once, before the
 * broker's threads. */
int h2lib_load(struct jail_err *e) WUR;
bool h2lib_loaded(void);

#ifndef H2LIB_IMPL
#define nghttp2_session_callbacks_new (*h2lib.nghttp2_session_callbacks_new)
#define nghttp2_session_callbacks_del (*h2lib.nghttp2_session_callbacks_del)
#define nghttp2_session_callbacks_set_on_begin_headers_callback (*h2lib.nghttp2_session_callbacks_set_on_begin_headers_callback)
#define nghttp2_session_callbacks_set_on_header_callback (*h2lib.nghttp2_session_callbacks_set_on_header_callback)
#define nghttp2_session_callbacks_set_on_frame_recv_callback (*h2lib.nghttp2_session_callbacks_set_on_frame_recv_callback)
#define nghttp2_session_callbacks_set_on_data_chunk_recv_callback (*h2lib.nghttp2_session_callbacks_set_on_data_chunk_recv_callback)
#define nghttp2_session_callbacks_set_on_stream_close_callback (*h2lib.nghttp2_session_callbacks_set_on_stream_close_callback)
#define nghttp2_option_new (*h2lib.nghttp2_option_new)
#define nghttp2_option_del (*h2lib.nghttp2_option_del)
#define nghttp2_option_set_no_auto_window_update (*h2lib.nghttp2_option_set_no_auto_window_update)
#define nghttp2_option_set_max_send_header_block_length (*h2lib.nghttp2_option_set_max_send_header_block_length)
#define nghttp2_session_server_new3 (*h2lib.nghttp2_session_server_new3)
#define nghttp2_session_client_new3 (*h2lib.nghttp2_session_client_new3)
#define nghttp2_session_del (*h2lib.nghttp2_session_del)
#define nghttp2_submit_settings (*h2lib.nghttp2_submit_settings)
#define nghttp2_session_set_local_window_size (*h2lib.nghttp2_session_set_local_window_size)
#define nghttp2_session_mem_recv (*h2lib.nghttp2_session_mem_recv)
#define nghttp2_session_mem_send (*h2lib.nghttp2_session_mem_send)
#define nghttp2_session_want_read (*h2lib.nghttp2_session_want_read)
#define nghttp2_session_want_write (*h2lib.nghttp2_session_want_write)
#define nghttp2_submit_request (*h2lib.nghttp2_submit_request)
#define nghttp2_submit_response (*h2lib.nghttp2_submit_response)
#define nghttp2_submit_headers (*h2lib.nghttp2_submit_headers)
#define nghttp2_submit_trailer (*h2lib.nghttp2_submit_trailer)
#define nghttp2_submit_rst_stream (*h2lib.nghttp2_submit_rst_stream)
#define nghttp2_submit_goaway (*h2lib.nghttp2_submit_goaway)
#define nghttp2_session_terminate_session (*h2lib.nghttp2_session_terminate_session)
#define nghttp2_session_resume_data (*h2lib.nghttp2_session_resume_data)
#define nghttp2_session_consume (*h2lib.nghttp2_session_consume)
#define nghttp2_session_get_stream_user_data (*h2lib.nghttp2_session_get_stream_user_data)
#define nghttp2_session_set_stream_user_data (*h2lib.nghttp2_session_set_stream_user_data)
#define nghttp2_session_get_last_proc_stream_id (*h2lib.nghttp2_session_get_last_proc_stream_id)
#define nghttp2_strerror (*h2lib.nghttp2_strerror)
#endif

#endif
