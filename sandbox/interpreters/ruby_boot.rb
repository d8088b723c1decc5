# Runs main.rb as `ruby main.rb` would, once ruby.wasm is initialised (evaluated by
# sandbox/src/interpreters/ruby.rs; ruby.wasm has no `main` that runs a script). Everything is
# inside a lambda so that none of this leaks into the program's top-level scope.
-> do
  $0 = "main.rb"
  # Bundled gems (prime, matrix, rbs...) on the load path without RubyGems, after the standard
  # library, as `require` would find them with RubyGems loaded.
  require "rbconfig"
  $LOAD_PATH.concat(Dir.glob("#{RbConfig::CONFIG["rubylibprefix"]}/gems/#{RbConfig::CONFIG["ruby_version"]}/gems/*/lib"))
  boot_frames = caller(0).size
  status =
    begin
      TOPLEVEL_BINDING.eval(File.read("main.rb"), "main.rb", 1)
      0
    rescue SystemExit => e
      e.status
    rescue Exception => e # rubocop:disable Lint/RescueException -- what `ruby` reports too
      # The outermost frames are this script's and the eval's, not the program's.
      trace = e.backtrace
      e.set_backtrace(trace[0, trace.size - boot_frames - 1]) if trace && trace.size > boot_frames
      $stderr.write(e.full_message(highlight: false))
      1
    end
  # exit! skips the buffers' flush at exit (there is no exit here: the host ends the run).
  [$stdout, $stderr].each do |io|
    io.flush
  rescue IOError
    nil
  end
  exit!(status)
end.call
