//! Stopping the server closes its port. Alone in its test binary: a server started by a
//! test running beside it could be given the freed port.

mod common;

#[test]
fn stop_ends_the_server() {
    let (server, _) = common::demo_server(Default::default());
    let port = server.port();
    let host = format!("127.0.0.1:{port}");
    assert_eq!(
        common::request(port, "GET", "/api/models", &host, &[]).status,
        200
    );
    server.stop();
    // The HTTP crate's accept thread lets go of the socket just after the server is
    // dropped: the port must close within a few seconds.
    let closed = (0..100).any(|_| {
        let refused = std::net::TcpStream::connect(("127.0.0.1", port)).is_err();
        if !refused {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        refused
    });
    assert!(
        closed,
        "port {port} still accepts connections 5 s after stop"
    );
}
