#version 450
/* Does nothing: launch latency. */
layout(local_size_x = 64) in;
void main()
{
}
