"""What counts as I/O, a clock read or middleware inside a pipeline (LCM901 and the analysis that
lets I/O-only statements decide nothing)."""
from __future__ import annotations

IO_BUILTINS = frozenset({"print", "open", "input", "breakpoint"})
STEP_STOPPERS = frozenset({"input", "breakpoint"})   # builtins that wait for a person
IO_FUNCTIONS = frozenset({
    "json.load", "json.dump", "pickle.load", "pickle.dump", "numpy.save", "numpy.savez", "numpy.savez_compressed",
    "numpy.load", "numpy.loadtxt", "numpy.savetxt", "numpy.genfromtxt", "numpy.fromfile", "torch.save", "torch.load",
    "cv2.imwrite", "cv2.imread", "cv2.imshow", "cv2.waitKey", "cv2.VideoCapture", "sys.stdout.write", "sys.stdout.flush",
    "sys.stderr.write", "sys.stderr.flush", "warnings.warn", "os.system", "os.read", "os.write", "os.remove", "yaml.safe_load",
    "yaml.load", "yaml.dump", "yaml.safe_dump", "PIL.Image.open", "imageio.imread", "imageio.imwrite",
    "pprint.pprint", "os.makedirs", "os.mkdir", "os.path.exists", "os.path.isfile", "os.path.isdir",
    "os.path.getsize",
})
# Path functions that only compute a path from strings (no file system access): pure, like a string's methods.
PATH_STRING_FUNCTIONS = frozenset({"os.path.join", "os.path.dirname", "os.path.basename", "os.path.splitext",
                                   "os.path.split", "os.path.normpath", "os.path.expanduser"})
# The reads among them whose value can feed a step (a file, a device): `run` makes each a graph input the
# host feeds (runner.draws); the others write or report.
IO_READ_FUNCTIONS = frozenset({
    "json.load", "pickle.load", "numpy.load", "numpy.loadtxt", "numpy.genfromtxt", "numpy.fromfile", "torch.load",
    "cv2.imread", "yaml.safe_load", "yaml.load", "PIL.Image.open", "imageio.imread", "os.read",
})
# ... and among those, the image reads: their value is pixels, the pipeline's input (never a setting), so what
# the step computes from an image it reads is pipeline data (a PIL image's methods, the array made from it).
IMAGE_READS = frozenset({"PIL.Image.open", "cv2.imread", "imageio.imread", "imageio.v2.imread", "imageio.v3.imread"})
IO_ROOTS = ("requests.", "urllib.", "http.", "socket.", "subprocess.", "shutil.", "csv.", "sqlite3.", "zmq.",
            "rclpy.", "rospy.", "wandb.", "mlflow.", "tensorboardX.", "torch.utils.tensorboard.",
            # robot middleware and device links: LCM, DDS, Unitree SDK, serial ports, CAN, MQTT, cameras
            "lcm.", "tf2_ros.", "cyclonedds.", "unitree_sdk2py.core.channel.", "serial.", "can.", "paho.", "pyrealsense2.",
            "ecal.", "cv2.VideoCapture",
            # key-value stores, message brokers and RPC clients (`redis.Redis(...).get/.set/.hget/.publish`)
            "redis.", "pymemcache.", "etcd3.", "pymongo.", "kafka.", "confluent_kafka.", "pika.", "nats.", "grpc.",
            "zenoh.", "roslibpy.", "websocket.", "websockets.", "httpx.", "aiohttp.", "pynng.")
# Value types under those roots: building one (`rospy.Duration(1.0)`, a stamp `rospy.Time(0)`) reads and
# sends nothing (`rospy.Time.now()` does: a clock read).
IO_VALUE_TYPES = frozenset({"rospy.Time", "rospy.Duration", "rclpy.time.Time", "rclpy.duration.Duration"})
# Objects a simulator or a driver refreshes between calls (the MuJoCo state `MjData`: `qpos`, `sensordata`,
# `sensor(name).data`): an attribute holding one is an input of every step that reads its fields.
LIVE_STATE_CONSTRUCTORS = frozenset({"mujoco.MjData", "mujoco.mjData", "isaacgym.gymtorch.wrap_tensor"})
# ... and their static counterparts: a simulator or robot model loaded once (`mujoco.MjModel.from_xml_path(...)`)
# holds the sizes, names and addresses of the run. A lookup on one (`mj_name2id(model, ...)`, `model.jnt_qposadr`)
# is a constant of the run, never pipeline data; the refreshed state is the `MjData` built from it.
STATIC_MODEL_CONSTRUCTORS = frozenset({"mujoco.MjModel.from_xml_path", "mujoco.MjModel.from_xml_string",
                                       "mujoco.MjModel.from_binary_path", "mujoco.MjModel.from_xml_file"})
# Clock reads: the value read while tracing becomes a constant of the exported model.
CLOCK_FUNCTIONS = frozenset({"time.time", "time.time_ns", "time.perf_counter", "time.perf_counter_ns",
                             "time.monotonic", "time.monotonic_ns", "time.process_time", "datetime.datetime.now",
                             "datetime.datetime.utcnow", "datetime.now", "datetime.utcnow", "rospy.Time.now",
                             "rospy.get_time", "rospy.get_rostime"})
# Calls that only wait (a loop or branch around them and I/O paces the host, it computes nothing).
PACING_FUNCTIONS = frozenset({"time.sleep", "rospy.sleep"})
# Methods that only wait, on an object of these types (`rate = rospy.Rate(20)` ... `rate.sleep()`).
PACING_METHODS = frozenset({"rospy.Rate.sleep", "rospy.timer.Rate.sleep", "rclpy.rate.Rate.sleep",
                            "rclpy.timer.Rate.sleep"})
# Calls that hand out a clock object whose `.now()` reads the time (`node.get_clock()`, `rclpy.clock.Clock()`).
CLOCK_FACTORIES = frozenset({"get_clock", "Clock", "ROSClock"})
# Middleware handles built by a factory method of a node object (`self.create_publisher(...)`).
MIDDLEWARE_FACTORIES = frozenset({"create_publisher", "create_subscription", "create_client", "create_service",
                                  "advertise", "Publisher", "ChannelPublisher", "ChannelSubscriber"})
# Calls that send a step's result out of the process (a middleware publish, a bus or socket write).
SEND_METHODS = frozenset({"publish", "Write", "write", "send", "sendall", "sendto"})
# Calls that take a peer's reply into the process (a socket's or a message queue's receive).
RECEIVE_METHODS = frozenset({"recv", "recvfrom", "recv_into", "recv_multipart", "recv_json", "recv_pyobj",
                             "recv_string", "receive"})
# The send and receive methods in lower case: a client's wire calls whatever their spelling (`Send`, `Recv`).
SEND_METHOD_NAMES = frozenset(m.lower() for m in SEND_METHODS)
WIRE_METHOD_NAMES = SEND_METHOD_NAMES | frozenset(m.lower() for m in RECEIVE_METHODS)
# I/O that only reports (a log, a printed line, a CSV or metrics file): what reaches it alone is no output of
# the step. Every other I/O call (a publish, a socket or client send, a store's `set`) hands its arguments on.
REPORT_ROOTS = ("csv.", "wandb.", "mlflow.", "tensorboardX.", "torch.utils.tensorboard.", "logging.", "pprint.",
                "warnings.", "sys.stdout.", "sys.stderr.", "cv2.imshow")   # an OpenCV window shows an image to a person
# Logging functions of a middleware (ROS 1 `rospy.loginfo`, `rospy.logwarn_throttle`, ...): reports, like a logger's.
LOG_FUNCTION_PREFIXES = ("rospy.log",)
# Functions that save a value to a file named by a path argument (index of the path among the arguments): a
# path the function spells out itself (`f"{log_dir}/{stamp}_actions.npy"`) is a file it writes, like one it opened.
PATH_SAVERS = {"numpy.save": 0, "numpy.savez": 0, "numpy.savez_compressed": 0, "numpy.savetxt": 0, "torch.save": 1}
# Plotting libraries: what their calls (and the figures and axes they make) are handed is drawn for a person.
DRAWING_ROOTS = ("matplotlib.", "seaborn.", "plotly.")
# Methods that write their receiver to a file (a table's `to_csv`, a figure's `savefig`, an array's `tofile`).
FILE_WRITER_METHODS = frozenset({"to_csv", "to_json", "to_excel", "to_parquet", "to_pickle", "to_hdf", "to_feather",
                                 "savefig", "tofile"})
# How a finding names a read through a project I/O wrapper (LCM901 writes it, the run's verdict reads it).
WRAPPER_READ_TEXT = "reads through the project's I/O wrapper"
WRAPPER_SEND_TEXT = "sends the pipeline's values through the project's I/O wrapper"
# Builtins an I/O wrapper packs a message into (`port.write(bytes([...]))`): values, no I/O of their own.
WIRE_BUILTINS = frozenset({"bytes", "bytearray", "memoryview"})
# Methods of a lock, a queue or a condition that hand a value over to another thread (the host's sender).
HANDOFF_METHODS = frozenset({"acquire", "release", "put", "put_nowait", "notify", "notify_all"})
LOGGING_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "fatal"})
PATH_IO_METHODS = frozenset({"read_text", "read_bytes", "write_text", "write_bytes", "open", "unlink", "touch",
                             "mkdir", "exists", "iterdir", "glob"})
FILE_METHODS = frozenset({"read", "readline", "readlines", "write", "writelines", "flush"})

# Calls that hand a function and its arguments to another thread or process: the function runs outside the
# traced call (what it does with pipeline data is dropped from the export), and the call returns a handle,
# never data. name -> (function keyword, its position, arguments keyword, their position).
THREAD_HANDOFFS = {
    "threading.Thread": ("target", 1, "args", 3),
    "threading.Timer": ("function", 1, "args", 2),
    "multiprocessing.Process": ("target", 1, "args", 3),
}

# Calls that register a function for a framework to call again and again: a ROS timer or subscription, a
# message-filter callback, a thread's target. The registered function is a driver, like a loop body
# (analysis/entry/callbacks.py) ...
REGISTRARS = frozenset({"create_timer", "create_subscription", "registerCallback", "register_callback",
                        "Subscriber", "Timer", "Thread", "Process", "add_callback", "subscribe", "create_service",
                        "set_callback", "add_timer", "call_later", "schedule"})
# ... and any class named like one (`RecurrentThread(...)`, `RepeatingTimer(...)`), or a call handing a function
# over by one of these keywords (`Worker(target=self.run)`, `Channel(callback=self.on_msg)`).
REGISTRAR_SUFFIXES = ("Thread", "Timer")
REGISTRAR_KEYWORDS = frozenset({"target", "callback", "cb", "handler", "func",
                                "execute_callback", "execute_cb"})   # a ROS action server runs each goal

# Ways code registers a function to run outside the step, between its calls (what it writes is an input the
# step reads, not a value the step computes): a call named for it takes the function positionally
# (`signal.signal(SIGINT, on_sig)`, `keyboard.on_press(cb)`, `Thread(target=poll)` by keyword), a keyword named for
# it takes it by name (`Listener(on_press=on_key)`, `launch_passive(m, d, key_callback=on_key)`,
# `Timer(0.1, callback=tick)`), a class or method named like a thread, timer, listener or server takes it too.
OUTSIDE_REGISTRARS = REGISTRARS | frozenset({
    "signal", "on_press", "on_release", "add_hotkey", "on_press_key", "hook", "create_task", "ensure_future",
    "start_new_thread", "call_soon", "call_soon_threadsafe", "set_key_callback", "set_mouse_button_callback", "bind",
    "after", "connect", "add_listener", "add_event_callback", "Listener"})
OUTSIDE_REGISTRAR_SUFFIXES = (*REGISTRAR_SUFFIXES, "Listener", "Server", "Handler")
# Of those, the registrations an operator's action triggers (a key press, a mouse event, a signal): what such a
# handler writes is an operator's input whatever it stores (`self.speed += 0.1` on every press), where a
# subscription callback's or a thread's writes count only when they carry data (a message field, a device read).
OPERATOR_REGISTRARS = frozenset({"signal", "on_press", "on_release", "add_hotkey", "on_press_key", "hook",
                                 "set_key_callback", "set_mouse_button_callback", "Listener"})
OPERATOR_KEYWORDS = frozenset({"on_press", "on_release", "on_click", "on_move", "on_scroll", "key_callback"})
# ... the coroutine a scheduler is handed runs as its own task (`asyncio.create_task(self._pump())`).
COROUTINE_SCHEDULERS = frozenset({"create_task", "ensure_future", "run_coroutine_threadsafe", "start_soon"})
OUTSIDE_KEYWORDS = REGISTRAR_KEYWORDS | frozenset({"on_press", "on_release", "on_click", "on_move", "on_scroll",
                                                  "on_message", "key_callback", "function", "command"})
# LEAPP 0.7.2 (`leapp/export_manager.py`): only the tensors handed to `input_tensors` (and the state declared with
# `state_tensors`) are inputs of the exported graph; any other value the traced code reads (an attribute or a
# global a callback, a thread or a handler fills between calls) is not a traced value and is baked in as a
# constant, the value it held while tracing (leapp-guide.md: "Anything that is not a traced value and flows into
# a traced op is baked in as a constant"). Checked with 0.7.2 (onnx): a step tracing `tip` and reading
# `self.goal` gives a graph whose only input is `n/tip`, `compile_graph` validates it (True), and after
# `self.goal` changes the exported model's answer differs from the eager step's (the old goal is baked in).
OUTSIDE_INPUT_TEXT = "is filled outside the step"
# The component fields of a middleware vector (ROS `geometry_msgs` Vector3, Point, Quaternion: `x`, `y`, `z`, `w`):
# reading `.x` and `.y` of one stored part (`odom.twist.twist.linear`) reads one input, not two (LCM903).
VECTOR_COMPONENTS = frozenset({"x", "y", "z", "w"})
